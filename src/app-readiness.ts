import { dueJobs, type DueJobs } from './platform/jobs/queue-health';
import type { ReplicaState } from './platform/postgres/replicas/replica-set';
import type { StatementPool } from './platform/sql/connections';

/** What `GET /health/readiness?detail` shows beside `ready`, for an operator's eyes. */
export interface ReadinessDetail {
  /**
   * Each read replica in the order of DATABASE_READ_URLS: whether reads go to it, how far
   * behind it is, and why it is skipped (the kind of problem only: no address, no message).
   */
  replicas: {
    replica: number;
    healthy: boolean;
    lagSeconds: number | null;
    problem: string | null;
  }[];
  /** Due jobs by task, and how long the oldest waits (null: the database did not answer). */
  jobQueue: DueJobs[] | null;
}

export function readinessDetail(
  pool: StatementPool,
  replicas: () => readonly ReplicaState[],
): () => Promise<ReadinessDetail> {
  return async () => ({
    replicas: replicas().map((state, i) => ({
      replica: i + 1,
      healthy: state.healthy,
      lagSeconds: state.lagSeconds,
      problem: state.problem?.split(':')[0] ?? null,
    })),
    jobQueue: await dueJobs(pool).catch(() => null),
  });
}
