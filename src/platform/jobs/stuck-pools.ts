import type {
  WorkerEvents,
  WorkerPool,
} from 'graphile-worker' with { 'resolution-mode': 'import' };

/** How much longer than its jobs' abort time a pool may take to stop before it is given up. */
export const STUCK_AFTER_ABORT_MS = 15_000;

/**
 * Hears pools that start stopping and calls `giveUp` for one still stopping STUCK_AFTER_ABORT_MS
 * after its jobs' abort time (`abortMs`). A pool stops by itself when its cron fails (the
 * database away at a minute's turn); graphile-worker's graceful shutdown then waits without bound
 * for each worker's job or job lookup to end. A fleet run's primary restart left a pool stopping
 * for good, its jobs and queues locked in its name, which its live instance kept saying was alive:
 * the webhooks of those queues stopped on every instance.
 */
export function giveUpStuckPools(
  events: WorkerEvents,
  abortMs: number,
  giveUp: (workerPool: WorkerPool) => void,
): void {
  const stopping = new Map<WorkerPool, NodeJS.Timeout>();
  events.on('pool:gracefulShutdown', ({ workerPool }) => {
    if (!stopping.has(workerPool)) {
      const timer = setTimeout(() => {
        stopping.delete(workerPool);
        giveUp(workerPool);
      }, abortMs + STUCK_AFTER_ABORT_MS);
      timer.unref();
      stopping.set(workerPool, timer);
    }
  });
  events.on('pool:release', ({ workerPool }) => {
    clearTimeout(stopping.get(workerPool));
    stopping.delete(workerPool);
  });
}
