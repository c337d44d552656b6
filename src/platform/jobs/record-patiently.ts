import { setTimeout as sleep } from 'node:timers/promises';
import { classifyDatabaseError } from '../shared/db-errors';
import { DatabaseUnavailableError } from '../shared/errors';

/** How long the record of an act already done waits for the database to come back. */
export const RECORD_PATIENCE_MS = 30_000;
const FIRST_PAUSE_MS = 100;
const LONGEST_PAUSE_MS = 2_000;

/**
 * Records what a job did outside the database (a webhook answered, a message handed to the mail
 * server). The act cannot be undone, and a job that fails runs again and does it again: so while
 * the database is unavailable (a restart, a failover) the record is tried again, with growing
 * pauses, for up to `patienceMs`, unless the run is asked to stop (a shutdown); then the error
 * goes to the job, which runs again. Only then is the act done twice. Any other error goes at once.
 */
export async function recordPatiently<T>(
  record: () => Promise<T>,
  signal: AbortSignal,
  patienceMs = RECORD_PATIENCE_MS,
): Promise<T> {
  const until = Date.now() + patienceMs;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    try {
      return await record();
    } catch (error) {
      const unavailable = classifyDatabaseError(error) instanceof DatabaseUnavailableError;
      if (!unavailable || signal.aborted || Date.now() + pause > until) {
        throw error;
      }
      await sleep(pause, undefined, { signal }).catch(() => undefined);
    }
  }
}
