import { Migration } from '@mikro-orm/migrations';

/**
 * Rooms and other resources (issue 41), and meetings' bookings of them: which resources a meeting
 * books (meeting_resources, with how far ahead a series is booked), and the time each booking
 * holds (resource_bookings), which an exclusion constraint keeps from overlapping for one
 * resource: the database, not the service, makes a double booking impossible. `btree_gist` lets
 * the constraint's GiST index compare the resource's id for equality beside the range's overlap.
 */
export class Migration20261207045000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create extension if not exists btree_gist;`);
    this.addSql(
      `create table "resources" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "name" varchar(100) not null, "capacity" int not null, "building" varchar(100) null, "floor" varchar(40) null, "features" jsonb not null default '[]', "time_zone" varchar(64) not null default 'UTC', "working_hours" jsonb null, primary key ("id"));`,
    );
    this.addSql(`create index "resources_name_id_idx" on "resources" ("name", "id");`);
    this.addSql(
      `alter table "resources" add constraint "resources_capacity_range" check (capacity >= 1);`,
    );
    this.addSql(
      `create table "meeting_resources" ("meeting_id" uuid not null references "meetings" ("id") on delete cascade, "resource_id" uuid not null references "resources" ("id") on delete cascade, "booked_until" timestamptz null, "created_at" timestamptz not null default clock_timestamp(), primary key ("meeting_id", "resource_id"));`,
    );
    this.addSql(
      `create index "meeting_resources_resource_idx" on "meeting_resources" ("resource_id");`,
    );
    this.addSql(
      `create index "meeting_resources_booked_until_idx" on "meeting_resources" ("booked_until") where "booked_until" is not null;`,
    );
    this.addSql(
      `create table "resource_bookings" ("resource_id" uuid not null references "resources" ("id") on delete cascade, "meeting_id" uuid not null references "meetings" ("id") on delete cascade, "during" tstzrange not null, constraint "resource_bookings_not_empty" check (not isempty("during")), constraint "resource_bookings_no_overlap" exclude using gist ("resource_id" with =, "during" with &&));`,
    );
    this.addSql(
      `create index "resource_bookings_meeting_idx" on "resource_bookings" ("meeting_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "resource_bookings";`);
    this.addSql(`drop table if exists "meeting_resources";`);
    this.addSql(`drop table if exists "resources";`);
  }
}
