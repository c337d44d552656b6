import { Migration } from '@mikro-orm/migrations';

/**
 * The job queue's workers, each seen by its instance every few seconds (src/platform/jobs/
 * dead-workers.ts): a job or queue locked by a worker no longer seen belongs to an instance that
 * died, and is freed for the others at once rather than after graphile-worker's four hours.
 */
export class Migration20261207030000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "job_workers" (` +
        `"worker_id" text not null, ` +
        `"seen_at" timestamptz not null default now(), ` +
        `constraint "job_workers_pkey" primary key ("worker_id"));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "job_workers";`);
  }
}
