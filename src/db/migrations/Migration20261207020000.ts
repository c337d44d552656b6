import { Migration } from '@mikro-orm/migrations';

/**
 * Time away (issue 41): each user's away periods, out of office or focus, [start_time, end_time);
 * and the reason of an answer the service gave for a participant (an out-of-office period's title).
 */
export class Migration20261207020000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create type "away_kind" as enum ('out_of_office', 'focus');`);
    this.addSql(
      `create table "away_periods" (` +
        `"id" uuid not null, ` +
        `"created_at" timestamptz not null default now(), ` +
        `"updated_at" timestamptz not null default now(), ` +
        `"user_id" uuid not null, ` +
        `"start_time" timestamptz not null, ` +
        `"end_time" timestamptz not null, ` +
        `"kind" "away_kind" not null, ` +
        `"title" varchar(200) not null, ` +
        `"decline_invitations" boolean not null default false, ` +
        `constraint "away_periods_pkey" primary key ("id"), ` +
        `constraint away_periods_ordered check (end_time > start_time));`,
    );
    this.addSql(
      `create index "away_periods_user_end_idx" on "away_periods" ("user_id", "end_time");`,
    );
    this.addSql(
      `alter table "away_periods" add constraint "away_periods_user_id_foreign" ` +
        `foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`alter table "participants" add column "answer_reason" varchar(200) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "participants" drop column "answer_reason";`);
    this.addSql(`drop table "away_periods";`);
    this.addSql(`drop type "away_kind";`);
  }
}
