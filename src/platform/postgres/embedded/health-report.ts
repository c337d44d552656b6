import type { Logger } from 'pino';
import type { EmbeddedServer } from './embedded-server';
import type { HealthChange } from './supervisor';

/** Exit status of a process whose embedded database could not be brought back (EX_UNAVAILABLE). */
export const EMBEDDED_FAILED_EXIT_CODE = 69;

/**
 * Logs the embedded server's supervision as it happens: one line when the server dies, one when
 * it is back, and one when restarting it gave up (no line per attempt, no stack), then calls
 * `onFailed` (the process exits non-zero, so whatever supervises it starts it afresh).
 */
export function reportEmbeddedHealth(
  server: EmbeddedServer,
  logger: Logger,
  onFailed: () => void,
): void {
  const log = logger.child({ component: 'embedded-database' });
  const report = (change: HealthChange): void => {
    if (change.health === 'restarting') {
      log.error(
        { exitCode: change.exit.code, signal: change.exit.signal },
        'the embedded database server stopped unexpectedly; restarting it',
      );
    } else if (change.health === 'up') {
      log.warn(
        { attempts: change.attempts, downMs: change.downMs },
        'the embedded database server is back',
      );
    } else {
      log.fatal(
        { attempts: change.attempts, downMs: change.downMs, reason: change.reason },
        'the embedded database server could not be restarted; exiting',
      );
      onFailed();
    }
  };
  server.onHealthChange(report);
  // A change before we were called (during start-up) is reported now, without its details.
  const now = server.health();
  if (now === 'restarting') {
    report({ health: 'restarting', exit: { code: null, signal: null } });
  } else if (now === 'failed') {
    report({ health: 'failed', attempts: 0, downMs: 0, reason: 'gave up during start-up' });
  }
}
