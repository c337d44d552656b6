import { pino, type Logger } from 'pino';
import type { Config } from './config';

/** The structured JSON logger; request logs carry the request id and SQL statement count. */
export function createLogger(level: Config['logLevel']): Logger {
  return pino({
    level,
    base: { service: 'meeting-api' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.passwordHash'],
      censor: '[redacted]',
    },
  });
}
