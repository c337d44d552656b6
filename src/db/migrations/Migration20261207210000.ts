import { Migration } from '@mikro-orm/migrations';

/**
 * The new columns of a row in the old shape, as SQL over the row's columns (`row`: their prefix):
 * a participant's change if it names one, else a meeting's if it names one, else a user's; the
 * user a meeting's change concerns is its related id, and a user's change concerns no other.
 */
const newShape = (row: string): Record<string, string> => ({
  subject_type:
    `case when ${row}"participant_id" is not null then 'participant' ` +
    `when ${row}"meeting_id" is not null then 'meeting' else 'user' end`,
  subject_id: `coalesce(${row}"participant_id", ${row}"meeting_id", ${row}"user_id")`,
  scope_id: `${row}"meeting_id"`,
  related_id: `case when ${row}"meeting_id" is null then null else ${row}"user_id" end`,
});

/**
 * The old columns of a row in the new shape, as the previous release wrote them: the meeting of
 * a meeting's or a participant's change, the participant of a participant's, and the user a change
 * concerns (a user's change: its subject; a meeting's: the related user).
 */
const oldShape = (row: string): Record<string, string> => ({
  meeting_id: `${row}"scope_id"`,
  participant_id: `case when ${row}"subject_type" = 'participant' then ${row}"subject_id" end`,
  user_id:
    `case when ${row}"subject_type" = 'user' then ${row}"subject_id" ` +
    `else ${row}"related_id" end`,
});

/**
 * The change log knows no domain: each change names its subject (`subject_type`, `subject_id`),
 * the aggregate it belongs to (`scope_id`, indexed with the log's order) and another it concerns
 * (`related_id`) beside who made it (`actor_id`); the modules that write and read changes say what
 * these are. Rows are converted in place, keeping their (tx, position), so every cursor given out
 * stays valid: a meeting's change becomes one of subject `meeting` (the meeting), a participant's
 * one of subject `participant` (scope: its meeting, related: its user), and a user's (profile,
 * verification, follow) one of subject `user`. The wake-up channel becomes `change_log`.
 *
 * Expand only: instances of the previous release run on the migrated database during a rolling
 * upgrade (and in the benchmark's A/B mode), writing and reading the old columns (`meeting_id`,
 * `participant_id`, `user_id`) and listening on `meeting_events`. So the old columns stay, with
 * their index, and a trigger fills whichever shape a writer left out: an old writer's row gets the
 * new columns as the conversion makes them, a new writer's the old ones as the old code wrote
 * them. `subject_type` and `subject_id` are not null all the same (the trigger runs before the
 * constraint). The wake-up is sent on both channels. The new code reads and writes only the new
 * columns. The contract step is a later release's migration, once no instance of this one's
 * previous release runs: it drops the old columns, their index (`change_log_meeting_idx`), the
 * trigger and the `meeting_events` notice.
 */
export class Migration20261207210000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "change_log" add column "subject_type" text null, ` +
        `add column "subject_id" uuid null, add column "scope_id" uuid null, ` +
        `add column "related_id" uuid null;`,
    );
    // No write ever logged a change that names nothing; such a row could not be converted.
    this.addSql(
      `delete from "change_log" ` +
        `where "meeting_id" is null and "participant_id" is null and "user_id" is null;`,
    );
    const converted = Object.entries(newShape(''));
    this.addSql(
      `update "change_log" set ${converted.map(([to, from]) => `"${to}" = ${from}`).join(', ')};`,
    );
    this.addSql(
      `alter table "change_log" alter column "subject_type" set not null, ` +
        `alter column "subject_id" set not null;`,
    );
    // Beside change_log_meeting_idx, which the previous release's reads of a meeting use: the two
    // columns hold the same ids, but an index serves the column it is on.
    this.addSql(
      `create index "change_log_scope_idx" on "change_log" ("scope_id", "tx", "position");`,
    );
    const assign = (shape: Record<string, string>) =>
      Object.entries(shape)
        .map(([to, from]) => `new."${to}" := ${from}; `)
        .join('');
    this.addSql(
      `create function "change_log_fill_shapes"() returns trigger language plpgsql as $$ begin ` +
        `if new."subject_type" is null then ${assign(newShape('new.'))}` +
        `else ${assign(oldShape('new.'))}end if; return new; end $$;`,
    );
    this.addSql(
      `create trigger "change_log_both_shapes" before insert on "change_log" ` +
        `for each row execute function "change_log_fill_shapes"();`,
    );
    this.addSql(
      `create or replace function "change_log_notify"() returns trigger language plpgsql as $$ ` +
        `begin perform pg_notify('change_log', ''); perform pg_notify('meeting_events', ''); ` +
        `return null; end $$;`,
    );
  }

  override async down(): Promise<void> {
    // Every row has its old columns: those written since were filled by the trigger.
    this.addSql(
      `create or replace function "change_log_notify"() returns trigger language plpgsql as $$ ` +
        `begin perform pg_notify('meeting_events', ''); return null; end $$;`,
    );
    this.addSql(`drop trigger "change_log_both_shapes" on "change_log";`);
    this.addSql(`drop function "change_log_fill_shapes"();`);
    this.addSql(`drop index "change_log_scope_idx";`);
    this.addSql(
      `alter table "change_log" drop column "subject_type", drop column "subject_id", ` +
        `drop column "scope_id", drop column "related_id";`,
    );
  }
}
