import { format } from 'node:util';
import type { Logger } from 'pino';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** Where each console method's lines go. `trace` prints a stack: an error's, kept apart. */
const LEVELS: ReadonlyArray<[keyof Console & string, Level]> = [
  ['debug', 'debug'],
  ['log', 'info'],
  ['info', 'info'],
  ['warn', 'warn'],
  ['error', 'error'],
  ['trace', 'error'],
];

/**
 * Sends what libraries write to the console, and Node's own warnings, through the service's
 * logger, so that every line the process writes is one JSON object: graphile-worker prints a
 * worker that exits with an error with `console.trace` (a `Trace:` line and a stack, seen in
 * database outages), and a DeprecationWarning is a plain line on stderr. An Error among the
 * arguments goes to `err` (frames in their own field, no values: log-safety.ts); the rest is
 * the message, as console would have formatted it. Called by the process's entry point once its
 * logger exists: tests that create apps keep jest's console. Answers how to undo it.
 */
export function routeConsoleToLog(logger: Logger): () => void {
  const log = logger.child({ component: 'console' });
  const methods = LEVELS.map(([method]) => [method, console[method]] as const);
  const warningListeners = process.listeners('warning');
  for (const [method, level] of LEVELS) {
    Object.assign(console, {
      [method]: (...args: unknown[]) => {
        const err = args.find((arg) => arg instanceof Error);
        const rest = args.filter((arg) => arg !== err);
        const message = rest.length > 0 ? format(...rest) : (err?.message ?? method);
        log[level](err ? { err, via: `console.${method}` } : { via: `console.${method}` }, message);
      },
    });
  }
  // Node's own printer of warnings writes plain text: replaced, not joined.
  process.removeAllListeners('warning');
  const onWarning = (warning: Error) => {
    log.warn({ err: warning, warning: warning.name, via: 'process warning' }, warning.message);
  };
  process.on('warning', onWarning);
  // Puts everything back (for a test of it, in a process that goes on).
  return () => {
    Object.assign(console, Object.fromEntries(methods));
    process.off('warning', onWarning);
    for (const listener of warningListeners) {
      process.on('warning', listener);
    }
  };
}
