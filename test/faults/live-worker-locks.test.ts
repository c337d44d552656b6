import { Client } from 'pg';
import pino from 'pino';
import { startJobQueue, type JobQueue, JOBS_SCHEMA } from '../../src/platform/jobs/job-queue';
import { HEARTBEAT_MS, HEARTBEATS_TABLE } from '../../src/platform/sql/heartbeats';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

/**
 * What a live instance's job holds is never taken for a dead one's: the party that locks a
 * running job and its queue (graphile-worker locks them with its worker pool's id) is the one
 * the instance's heartbeat says is alive. Otherwise every job and queue locked longer than a
 * worker may go unseen is freed under a live worker, and run a second time at once (the fleet
 * run saw a webhook delivered twice, 20 ms apart, by one host).
 */
describe('job locks of a live instance', () => {
  let database: TestDatabase;
  let queue: JobQueue | null = null;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await queue?.close();
    await database?.drop();
  });

  it('are held by a party its heartbeat keeps alive', async () => {
    const { config } = database;
    if (config.kind !== 'postgres') {
      throw new Error('a test database is a PostgreSQL URL');
    }
    // graphile-worker LISTENs: the direct URL when a pooler is in front.
    const url = config.directUrl ?? config.url;
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    queue = await startJobQueue({
      url,
      logger: pino({ level: 'silent' }),
      tasks: {
        held: async () => {
          started();
          await finished;
        },
      },
      concurrency: 2,
      pollIntervalMs: 500,
      shutdownAbortMs: 1_000,
    });
    await queue.add({ task: 'held', payload: {}, queue: 'held-queue' });
    await running;
    // Two heartbeats: the first may have come before the pool took the job.
    await new Promise((resolve) => setTimeout(resolve, 2 * HEARTBEAT_MS + 500));
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ holder: string; alive: boolean }>(
        `select l."locked_by" as "holder",
           exists (select 1 from "${HEARTBEATS_TABLE}" h where h."id" = l."locked_by"
                   and h."seen_at" > now() - interval '${2 * HEARTBEAT_MS} milliseconds') as "alive"
         from (select "locked_by" from "${JOBS_SCHEMA}"."_private_jobs" where "locked_by" is not null
               union all
               select "locked_by" from "${JOBS_SCHEMA}"."_private_job_queues"
               where "locked_by" is not null) l`,
      );
      // The job and its queue, both locked, by a party seen alive.
      expect(rows).toHaveLength(2);
      expect(rows.every((row) => row.alive)).toBe(true);
    } finally {
      await client.end();
      finish();
    }
  }, 30_000);
});
