import { Migration } from '@mikro-orm/migrations';

/**
 * The change log knows no domain: each change names its subject (`subject_type`, `subject_id`),
 * the aggregate it belongs to (`scope_id`, was `meeting_id`, indexed with the log's order as
 * before), another it concerns (`related_id`, was `user_id`) and who made it (`actor_id`); the
 * modules that write and read changes say what these are. Rows are converted in place, keeping
 * their (tx, position), so every cursor given out stays valid: a meeting's change becomes one of
 * subject `meeting` (the meeting), a participant's one of subject `participant` (scope: its
 * meeting, related: its user), and a user's (profile, verification, follow) one of subject `user`.
 * The wake-up channel becomes `change_log`.
 */
export class Migration20261207210000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "change_log" add column "subject_type" text null, ` +
        `add column "subject_id" uuid null;`,
    );
    // No write ever logged a change that names nothing; such a row could not be converted.
    this.addSql(
      `delete from "change_log" ` +
        `where "meeting_id" is null and "participant_id" is null and "user_id" is null;`,
    );
    this.addSql(
      `update "change_log" set ` +
        `"subject_type" = case when "participant_id" is not null then 'participant' ` +
        `when "meeting_id" is not null then 'meeting' else 'user' end, ` +
        `"subject_id" = coalesce("participant_id", "meeting_id", "user_id"), ` +
        `"user_id" = case when "meeting_id" is null then null else "user_id" end;`,
    );
    this.addSql(
      `alter table "change_log" alter column "subject_type" set not null, ` +
        `alter column "subject_id" set not null, drop column "participant_id";`,
    );
    this.addSql(`alter table "change_log" rename column "meeting_id" to "scope_id";`);
    this.addSql(`alter table "change_log" rename column "user_id" to "related_id";`);
    this.addSql(`alter index "change_log_meeting_idx" rename to "change_log_scope_idx";`);
    this.addSql(
      `create or replace function "change_log_notify"() returns trigger language plpgsql as $$ ` +
        `begin perform pg_notify('change_log', ''); return null; end $$;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `create or replace function "change_log_notify"() returns trigger language plpgsql as $$ ` +
        `begin perform pg_notify('meeting_events', ''); return null; end $$;`,
    );
    this.addSql(`alter index "change_log_scope_idx" rename to "change_log_meeting_idx";`);
    this.addSql(`alter table "change_log" rename column "related_id" to "user_id";`);
    this.addSql(`alter table "change_log" rename column "scope_id" to "meeting_id";`);
    this.addSql(`alter table "change_log" add column "participant_id" uuid null;`);
    this.addSql(
      `update "change_log" set ` +
        `"participant_id" = case when "subject_type" = 'participant' then "subject_id" end, ` +
        `"user_id" = case when "subject_type" = 'user' then "subject_id" else "user_id" end;`,
    );
    this.addSql(`alter table "change_log" drop column "subject_type", drop column "subject_id";`);
  }
}
