import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { QueryCounter } from '../db/query-stats';

/**
 * Request logging: one line per request (pino-http, at `info`) with the number of SQL statements
 * it sent, counted in a per-request scope. Above `info` those lines would be dropped anyway, so
 * neither the scope (it keeps async hooks busy on every promise) nor pino-http's per-request
 * logger is paid for; failures are still logged where they are met.
 */
export function requestLogging(logger: Logger): RequestHandler[] {
  if (!logger.isLevelEnabled('info')) {
    return [];
  }
  return [
    (_req, res, next) => {
      QueryCounter.withScope((stats) => {
        res.locals['queryStats'] = stats;
        next();
      });
    },
    pinoHttp({
      logger,
      customSuccessObject: (_req, res, fields: object) => ({
        ...fields,
        sqlStatements: (res.locals as { queryStats?: { statements: number } }).queryStats
          ?.statements,
      }),
      autoLogging: { ignore: (req) => req.url?.startsWith('/health/') ?? false },
    }),
  ];
}
