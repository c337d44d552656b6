import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { DEAD_AFTER_MS, heartbeatLoop, HEARTBEATS_TABLE, MARK_SEEN } from '../sql/heartbeats';
import type { WorkerEvents } from 'graphile-worker' with { 'resolution-mode': 'import' };

/** Rows of parties gone this long are deleted. */
const FORGET_AFTER_MS = 3_600_000;

/**
 * Marks this instance's workers seen, frees the jobs and queues locked by workers that are not
 * (their instance died: killed, or cut off from the database) and were locked longer ago than a
 * worker may go unseen, and forgets workers long gone. Locked longer ago, not only unseen: a
 * worker locks a job before its first heartbeat may land. graphile-worker's own
 * `force_unlock_workers` does the freeing; it frees such locks by itself only after four hours.
 */
const SWEEP = (schema: string): string => `
  with seen as (${MARK_SEEN} returning "id"),
  live as (
    select "id" from seen
    union
    select "id" from "${HEARTBEATS_TABLE}" where "seen_at" > now() - $2 * interval '1 millisecond'
  ),
  dead as (
    select "locked_by" as "worker_id" from "${schema}"."_private_jobs"
     where "locked_by" is not null and "locked_at" < now() - $2 * interval '1 millisecond'
    union
    select "locked_by" from "${schema}"."_private_job_queues"
     where "locked_by" is not null and "locked_at" < now() - $2 * interval '1 millisecond'
    except
    select "id" from live
  ),
  forgotten as (
    delete from "${HEARTBEATS_TABLE}" where "seen_at" < now() - $3 * interval '1 millisecond'
  ),
  unlocked as (
    select "${schema}".force_unlock_workers(array(select "worker_id" from dead))
  )
  select array(select "worker_id" from dead order by 1) as "dead" from unlocked`;

/**
 * Watches this instance's worker pools and workers (graphile-worker's `pool:create`,
 * `pool:release`, `worker:create` and `worker:stop` events)
 * and, every HEARTBEAT_MS, says they are alive and frees what dead workers of any instance hold,
 * so that a job a killed instance was running is run again by another within seconds. A database
 * away leaves this quiet: the next heartbeat tries again.
 */
export function watchDeadWorkers(options: {
  pool: Pool;
  events: WorkerEvents;
  schema: string;
  logger: Logger;
}): { stop(): Promise<void>; forget(poolId: string): void } {
  const { pool, events, logger } = options;
  // graphile-worker 0.18 locks jobs and queues with the id of the worker pool (its workers'
  // own ids name them in its logs only): both are said to be alive.
  const workers = new Set<string>();
  events.on('pool:create', ({ workerPool }) => workers.add(workerPool.id));
  events.on('pool:release', ({ workerPool }) => workers.delete(workerPool.id));
  events.on('worker:create', ({ worker }) => workers.add(worker.workerId));
  events.on('worker:stop', ({ worker }) => workers.delete(worker.workerId));
  const sweep = SWEEP(options.schema);
  const beat = (): Promise<void> =>
    pool.query<{ dead: string[] }>(sweep, [[...workers], DEAD_AFTER_MS, FORGET_AFTER_MS]).then(
      ({ rows }) => {
        const dead = rows[0]?.dead ?? [];
        if (dead.length > 0) {
          logger.warn(
            { component: 'jobs', workers: dead },
            'jobs of workers no longer seen freed (their instance stopped without releasing them)',
          );
        }
      },
      (error: unknown) => logger.debug({ component: 'jobs', err: error }, 'heartbeat failed'),
    );
  return {
    ...heartbeatLoop(beat),
    // A pool given up on (stuck stopping): no longer said to be alive, so the others free what
    // it holds.
    forget: (poolId) => workers.delete(poolId),
  };
}
