import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../../src/app-config';
import { createLogger } from '../../src/platform/observability/logger';

/** One JSON log line of the service. */
export type LogEntry = Record<string, unknown>;

/** The service's own logger (createLogger), writing into an array the test reads. */
export function capturedLogger(): { lines: LogEntry[]; logger: (config: Config) => Logger } {
  const lines: LogEntry[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim()) {
          lines.push(JSON.parse(line) as LogEntry);
        }
      }
      done();
    },
  });
  return {
    lines,
    logger: (config) => createLogger({ ...config, logLevel: 'info', logFormat: 'json' }, sink),
  };
}
