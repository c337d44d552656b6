import { Migration } from '@mikro-orm/migrations';

/**
 * Who is alive (src/platform/sql/heartbeats.ts): each instance and each of its job workers
 * seen every few seconds. A job or queue locked by a worker no longer seen, and an idempotency
 * key claimed by an instance no longer seen (`instance`), belong to a process that died, and are
 * taken over by the others at once rather than after graphile-worker's four hours or the key's
 * abandonment bound.
 */
export class Migration20261207030000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "heartbeats" (` +
        `"id" text not null, ` +
        `"seen_at" timestamptz not null default now(), ` +
        `constraint "heartbeats_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "idempotency_keys" add column "instance" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "idempotency_keys" drop column if exists "instance";`);
    this.addSql(`drop table if exists "heartbeats";`);
  }
}
