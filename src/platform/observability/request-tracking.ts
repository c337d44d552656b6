import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from './metrics';
import { currentRequest, type RequestScope, runInRequest, waitBudgetMs } from './request-scope';

const REQUEST_ID_HEADER = 'x-request-id';

// Printable, no spaces or quotes: safe in a header, a log line and a metric-free context.
const SANE_ID = /^[\w.:@/+=-]{1,128}$/;

/**
 * The id of a request: the one the client (or a proxy in front) sent when it is sane, else a
 * random UUID, unique across processes and cluster workers without any coordination.
 */
function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_ID.test(header) ? header : randomUUID();
}

/** The route label of a request no handler named: its Express route, or `unmatched` (404s). */
function expressRoute(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched';
}

/**
 * The first middleware: gives the request its id (echoed in `X-Request-Id`), its deadline (out
 * of REQUEST_TIMEOUT_MS) and a scope every later step can read, and when the response is done, observes its duration (one histogram
 * observation) and writes one compact log line (at `info`; health checks are not logged).
 */
export function requestTracking(options: {
  logger: Logger;
  metrics: Metrics | null;
  requestTimeoutMs: number;
}): RequestHandler {
  const { logger, metrics } = options;
  const waitMs = waitBudgetMs(options.requestTimeoutMs);
  const logRequests = logger.isLevelEnabled('info');
  return (req, res, next) => {
    const started = performance.now();
    const scope: RequestScope = {
      id: requestIdFrom(req.headers[REQUEST_ID_HEADER]),
      statements: 0,
      route: undefined,
      userId: undefined,
      deadline: started + waitMs,
      unavailableLogged: false,
    };
    res.setHeader(REQUEST_ID_HEADER, scope.id);
    res.once('close', () => {
      const ms = performance.now() - started;
      const route = scope.route ?? expressRoute(req);
      // A client that hung up before the answer was sent: nginx's 499.
      const status = res.writableFinished ? res.statusCode : 499;
      metrics?.observe(req.method, route, status, ms / 1000);
      if (logRequests && !route.includes('/health/')) {
        logger.info(
          {
            reqId: scope.id,
            method: req.method,
            route,
            status,
            ms: Math.round(ms * 10) / 10,
            sqlStatements: scope.statements,
            userId: scope.userId,
          },
          'request',
        );
      }
    });
    runInRequest(scope, next);
  };
}

/** Lifts the request's deadline: for a request that becomes a long-lived stream (SSE). */
export const withoutDeadline: RequestHandler = (_req, _res, next) => {
  const scope = currentRequest();
  if (scope) {
    scope.deadline = Infinity;
  }
  next();
};
