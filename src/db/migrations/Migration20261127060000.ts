import { Migration } from '@mikro-orm/migrations';

/**
 * The change log wakes its readers by itself: a statement trigger sends the notice on the
 * `meeting_events` channel (CHANGES_CHANNEL in src/platform/live/change-log.ts) after every
 * statement that appends to it, once the transaction commits. The append no longer has to end in
 * a `pg_notify` of its own, so it can ride as a common table expression on the write it belongs
 * to (one round trip fewer per write); PostgreSQL sends a transaction's identical notices once.
 */
export class Migration20261127060000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create function "change_log_notify"() returns trigger language plpgsql as $$ begin ` +
        `perform pg_notify('meeting_events', ''); return null; end $$;`,
    );
    this.addSql(
      `create trigger "change_log_appended" after insert on "change_log" ` +
        `for each statement execute function "change_log_notify"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger "change_log_appended" on "change_log";`);
    this.addSql(`drop function "change_log_notify"();`);
  }
}
