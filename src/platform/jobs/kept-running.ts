import type { Logger } from 'pino';
import type { Runner } from 'graphile-worker' with { 'resolution-mode': 'import' };

/** How long after its pool stopped by itself a new one is started. */
const RESTART_MS = 5_000;

/**
 * Keeps a worker pool running: graphile-worker stops its whole pool when a worker cannot record
 * a job's outcome (the database away for longer than it retries); a new one is started, until
 * closed.
 */
export function keptRunning(
  run: () => Promise<Runner>,
  first: Runner,
  logger: Logger,
): { runner(): Runner; replace(): void; close(): Promise<void> } {
  let runner = first;
  let closed = false;
  let restart: NodeJS.Timeout | null = null;
  let stopCurrent = (): void => undefined;
  const watch = (current: Runner): void => {
    const stopped = (): void => {
      if (closed || current !== runner || restart !== null) {
        return;
      }
      logger.warn({ component: 'jobs' }, 'job queue stopped; starting it again');
      const again = (): void => {
        restart = null;
        if (closed) {
          return;
        }
        run().then(
          (started) => {
            if (closed) {
              void started.stop().catch(() => undefined);
              return;
            }
            runner = started;
            watch(started);
          },
          (error: unknown) => {
            logger.debug({ component: 'jobs', err: error }, 'job queue not started');
            restart = setTimeout(again, RESTART_MS);
          },
        );
      };
      restart = setTimeout(again, RESTART_MS);
    };
    stopCurrent = stopped;
    current.promise.then(stopped, stopped);
  };
  watch(runner);
  return {
    runner: () => runner,
    // The current pool is taken as stopped (it is stuck stopping): a new one starts.
    replace: () => stopCurrent(),
    async close() {
      closed = true;
      if (restart) {
        clearTimeout(restart);
      }
      // A runner that stopped by itself says so again: it is stopped all the same.
      await runner.stop().catch(() => undefined);
    },
  };
}
