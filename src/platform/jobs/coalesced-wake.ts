import type { Logger } from 'pino';
import type { JobQueue, JobSpec } from './job-queue';

/** Asks within this long make one job. */
const COALESCE_MS = 50;

/**
 * A function that asks for `job` (a dispatch, keyed so that one waits at most): calls within
 * 50 ms ask once. A job that cannot be queued is left to the next call (or a recurring run).
 * `stop` ends the asking, a timer under way included.
 */
export function coalescedWake(
  queue: JobQueue,
  job: JobSpec,
  log: { logger: Logger; component: string },
): { wake(): void; stop(): void } {
  let stopped = false;
  let waking: NodeJS.Timeout | null = null;
  return {
    wake() {
      if (stopped || waking) {
        return;
      }
      waking = setTimeout(() => {
        waking = null;
        queue.add(job).catch((error: unknown) => {
          log.logger.debug({ component: log.component, err: error }, `${job.task} not queued`);
        });
      }, COALESCE_MS);
    },
    stop() {
      stopped = true;
      if (waking) {
        clearTimeout(waking);
      }
    },
  };
}
