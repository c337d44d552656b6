import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys (docs/rest-contract.md §8, src/platform/idempotency/idempotency-keys.ts): one row per
 * key a caller sent with a write, kept 24 hours. `scope` is the caller (`user <id>`, or for a
 * request without a valid token `anonymous <METHOD> <route>`); `fingerprint` the SHA-256 of the
 * request. While the first request runs, `owner` names its attempt; every transaction it commits
 * marks the row `committed` in that same transaction and keeps its result in `results`, so a write
 * that committed always leaves a committed row, even when its answer was lost. A finished answer is
 * kept in `status`, `headers` and `body` (`done`). `unanswered`: a write committed but its request
 * answered a failure; the next retry rebuilds the answer without writing again.
 */
export class Migration20261126191000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "idempotency_keys" (` +
        `"scope" text not null, ` +
        `"key" text not null, ` +
        `"fingerprint" bytea not null, ` +
        `"owner" uuid not null, ` +
        `"state" text not null check ("state" in ('running', 'committed', 'unanswered', 'done')), ` +
        `"claimed_at" timestamptz not null default now(), ` +
        `"expires_at" timestamptz not null, ` +
        `"results" jsonb not null default '{}', ` +
        `"status" smallint null, ` +
        `"headers" jsonb null, ` +
        `"body" bytea null, ` +
        `primary key ("scope", "key"));`,
    );
    this.addSql(
      `create index "idempotency_keys_expires_idx" on "idempotency_keys" ("expires_at");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "idempotency_keys";`);
  }
}
