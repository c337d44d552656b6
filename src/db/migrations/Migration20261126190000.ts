import { Migration } from '@mikro-orm/migrations';

/**
 * The change log (issue 26): every change that makes an event appends one row here, in the
 * transaction that makes the change, so an event is never lost to an outage of a listener. Rows
 * are read in the order of (tx, position): `tx` is the writing transaction's id, and a reader
 * takes only rows whose transaction no running one can precede (`tx` below the snapshot's xmin),
 * so a transaction that commits late can never slip in behind a reader (the outbox gap). The
 * horizon row records the newest (tx, position) pruned away: a cursor at or below it expired.
 */
export class Migration20261126190000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "change_log" (` +
        `"position" bigint generated always as identity primary key, ` +
        `"tx" xid8 not null default pg_current_xact_id(), ` +
        `"kind" text not null, ` +
        `"meeting_id" uuid null, ` +
        `"participant_id" uuid null, ` +
        `"user_id" uuid null, ` +
        `"occurred_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "change_log_order_idx" on "change_log" ("tx", "position");`);
    this.addSql(
      `create index "change_log_meeting_idx" on "change_log" ("meeting_id", "tx", "position");`,
    );
    this.addSql(`create index "change_log_occurred_idx" on "change_log" ("occurred_at");`);
    this.addSql(
      `create table "change_log_horizon" (` +
        `"id" boolean primary key default true check ("id"), ` +
        `"tx" xid8 not null, "position" bigint not null);`,
    );
    this.addSql(`insert into "change_log_horizon" ("tx", "position") values ('0', 0);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "change_log_horizon";`);
    this.addSql(`drop table "change_log";`);
  }
}
