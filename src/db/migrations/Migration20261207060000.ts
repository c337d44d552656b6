import { Migration } from '@mikro-orm/migrations';

/**
 * Read replicas (issue 42): each caller's last write position, so that a caller's reads on any
 * instance see their own writes (src/platform/postgres/replicas/write-positions.ts), when no
 * Redis is configured to keep it.
 */
export class Migration20261207060000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "read_positions" (` +
        `"caller" text not null, ` +
        `"lsn" pg_lsn not null, ` +
        `"written_at" timestamptz not null default now(), ` +
        `constraint "read_positions_pkey" primary key ("caller"));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "read_positions";`);
  }
}
