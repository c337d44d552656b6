import type { StatementPool } from '../sql/connections';
import { JOBS_SCHEMA } from './job-queue';

/** The jobs of one task that are due and not running: how many, and how long the oldest waits. */
export interface DueJobs {
  task: string;
  due: number;
  oldestSeconds: number;
}

/**
 * Due jobs by task (graphile-worker's own tables; `is_available`: not locked, attempts left). A
 * queue that stalls (a worker that holds its lock and does not run it, no worker for its task)
 * shows as an oldest wait that only grows; a healthy one stays within a few seconds, its poll
 * interval or its retry backoff aside.
 */
const DUE_JOBS =
  `select t."identifier", count(*)::int, ` +
  `coalesce(extract(epoch from now() - min(j."run_at")), 0)::float8 ` +
  `from "${JOBS_SCHEMA}"."_private_jobs" j ` +
  `join "${JOBS_SCHEMA}"."_private_tasks" t on t."id" = j."task_id" ` +
  `where j."is_available" and j."run_at" <= now() group by t."identifier"`;

/** The due jobs now, by task (none when the queue's schema is not installed yet). */
export async function dueJobs(pool: StatementPool): Promise<DueJobs[]> {
  const connection = await pool.connect();
  try {
    const { rows } = await connection.run({ text: DUE_JOBS });
    return rows.map(([task, due, oldestSeconds]) => ({
      task: String(task),
      due: Number(due),
      oldestSeconds: Number(oldestSeconds),
    }));
  } catch (error) {
    // 42P01: graphile-worker installs its schema when the first queue starts.
    if ((error as { code?: string }).code === '42P01') {
      return [];
    }
    throw error;
  } finally {
    connection.release();
  }
}
