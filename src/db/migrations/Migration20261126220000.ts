import { Migration } from '@mikro-orm/migrations';

/**
 * Time that coordinates (issue 27): a meeting lasts `duration_minutes` in a time zone, may repeat
 * by an RFC 5545 rule, and carries a description. `span` is the time the meeting (or its whole
 * series) takes, kept by a trigger from the columns it derives from and indexed for overlap, so
 * free/busy reads find the meetings of a window without reading a user's whole history. A series
 * without an end spans to infinity; `recurrence_ends_at` (written with the rule) bounds one that
 * ends. Single occurrences cancelled or moved are rows of `meeting_occurrence_changes`. Users may
 * keep their availability to themselves (`share_availability`).
 */
export class Migration20261126220000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "meetings" ` +
        `add column "duration_minutes" int not null default 60, ` +
        `add column "time_zone" varchar(64) not null default 'UTC', ` +
        `add column "description" varchar(2000) null, ` +
        `add column "recurrence" varchar(500) null, ` +
        `add column "recurrence_ends_at" timestamptz null, ` +
        `add column "span" tstzrange null;`,
    );
    this.addSql(
      `alter table "meetings" add constraint "meetings_duration_range" ` +
        `check (duration_minutes >= 5 and duration_minutes <= 1440);`,
    );
    this.addSql(
      `create function "meetings_span"() returns trigger language plpgsql as $$ begin ` +
        `new."span" := tstzrange(new."start_time", case when new."recurrence" is null ` +
        `then new."start_time" + make_interval(mins => new."duration_minutes") ` +
        `else coalesce(new."recurrence_ends_at", 'infinity') end); ` +
        `return new; end $$;`,
    );
    this.addSql(
      `create trigger "meetings_span" before insert or update of ` +
        `"start_time", "duration_minutes", "recurrence", "recurrence_ends_at", "span" ` +
        `on "meetings" for each row execute function "meetings_span"();`,
    );
    this.addSql(`update "meetings" set "span" = null;`);
    this.addSql(`create index "meetings_span_idx" on "meetings" using gist ("span");`);
    this.addSql(
      `create table "meeting_occurrence_changes" (` +
        `"id" uuid not null, ` +
        `"created_at" timestamptz not null default now(), ` +
        `"updated_at" timestamptz not null default now(), ` +
        `"meeting_id" uuid not null, ` +
        `"original_start_time" timestamptz not null, ` +
        `"start_time" timestamptz null, ` +
        `"cancelled" boolean not null default false, ` +
        `constraint "meeting_occurrence_changes_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "meeting_occurrence_changes" add constraint ` +
        `"meeting_occurrence_changes_meeting_id_foreign" foreign key ("meeting_id") ` +
        `references "meetings" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "meeting_occurrence_changes" add constraint ` +
        `"meeting_occurrence_changes_original_unique" unique ("meeting_id", "original_start_time");`,
    );
    this.addSql(
      `alter table "users" add column "share_availability" boolean not null default true;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "users" drop column "share_availability";`);
    this.addSql(`drop table "meeting_occurrence_changes";`);
    this.addSql(`drop trigger "meetings_span" on "meetings";`);
    this.addSql(`drop function "meetings_span"();`);
    this.addSql(
      `alter table "meetings" drop constraint "meetings_duration_range", ` +
        `drop column "span", drop column "recurrence_ends_at", drop column "recurrence", ` +
        `drop column "description", drop column "time_zone", drop column "duration_minutes";`,
    );
  }
}
