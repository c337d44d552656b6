import { pino, stdSerializers, type Logger } from 'pino';
import type { Config } from './config';

/**
 * Database errors are logged by their codes: MikroORM puts the SQL (with its parameters, such
 * as a password hash) in the message, which must not reach the logs.
 */
function serializeError(error: unknown): unknown {
  const serialized = stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  if (
    typeof (error as { sqlState?: unknown } | null)?.sqlState !== 'string' &&
    !('query' in serialized)
  ) {
    return serialized;
  }
  const { code, constraint, table, column, routine, severity } = serialized;
  const message = String(serialized['message'] ?? '');
  return {
    type: serialized['type'],
    message: message.includes(' - ') ? message.slice(message.lastIndexOf(' - ') + 3) : message,
    code,
    constraint,
    table,
    column,
    routine,
    severity,
    stack: String(serialized['stack'] ?? '')
      .split('\n')
      .filter((line) => line.trimStart().startsWith('at '))
      .join('\n'),
  };
}

/** The structured JSON logger; request logs carry the request id and SQL statement count. */
export function createLogger(level: Config['logLevel']): Logger {
  return pino({
    level,
    base: { service: 'meeting-api' },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: serializeError },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.passwordHash'],
      censor: '[redacted]',
    },
  });
}
