import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from './metrics';
import { AsyncLocalStorage } from 'node:async_hooks';

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
      journal: undefined,
      readOnly: false,
      readAfter: headerValue(req.headers[READ_AFTER_HEADER]),
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

/**
 * Names the request's route in its log line and duration metric (a pattern, never a URL with its
 * secrets or query), unless a step that knows it better has named it already. Requests nothing
 * names are `unmatched`.
 */
export function nameRoute(route: string): void {
  const scope = currentRequest();
  if (scope && scope.route === undefined) {
    scope.route = route;
  }
}

/** Lifts the request's deadline: for a request that becomes a long-lived stream (SSE). */
export const withoutDeadline: RequestHandler = (_req, _res, next) => {
  const scope = currentRequest();
  if (scope) {
    scope.deadline = Infinity;
  }
  next();
};

/** What is known of the request being served, wherever in its work the code runs. */
export interface RequestScope {
  /** The request id: the client's `X-Request-Id` when sane, else one of our own. */
  readonly id: string;
  /** SQL statements sent for this request so far. */
  statements: number;
  /** The REST route (`/api/v1/meeting/:meeting_id`) or GraphQL operation it ran, once known. */
  route: string | undefined;
  /** The caller, once the bearer token has been read. */
  userId: string | undefined;
  /**
   * Who pays for a GraphQL operation's cost (src/platform/graphql/cost-gate.ts): its bearer
   * token's subject, else the client's address. Unset without budgets.
   */
  payer?: string | undefined;
  /**
   * When (performance.now()) the request's waits end: every wait for a pooled connection, a
   * statement or a lock takes from this one budget (src/platform/postgres/request-deadline.ts), so a request
   * answers 503 by then however many statements it sends. Infinity: no bound (an event stream).
   */
  deadline: number;
  /** Whether this request's 503 has been logged (a GraphQL answer may carry several errors). */
  unavailableLogged: boolean;
  /**
   * The Idempotency-Key this request holds, which every transaction it runs joins
   * (src/platform/sql/sql-transaction.ts); undefined for a request without one.
   */
  journal?: TransactionJournal | undefined;
  /**
   * Set while a query operation runs: its reads outside a transaction may go to a read replica
   * (src/platform/postgres/replicas/read-routing.ts). Mutations, and everything else, read the
   * primary.
   */
  readOnly?: boolean;
  /** The write position the client sent back in `X-Read-After`: its reads must see it. */
  readAfter?: string | undefined;
}

/** The header of a write position: sent with every write's answer, sent back by the client. */
export const READ_AFTER_HEADER = 'x-read-after';

/** One value of a request header (the first, if it was sent twice). */
const headerValue = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/**
 * Runs one GraphQL operation (either face) of the current request, a query as a read-only one
 * (RequestScope.readOnly): everything it reads may come from a read replica.
 */
export async function runOperationOfKind<T>(kind: string, run: () => Promise<T>): Promise<T> {
  const scope = currentRequest();
  if (!scope || kind !== 'query') {
    return run();
  }
  scope.readOnly = true;
  try {
    return await run();
  } finally {
    scope.readOnly = false;
  }
}

/**
 * What a transaction of a request holding an Idempotency-Key does beyond its work
 * (src/platform/idempotency/idempotency.ts): it records, in itself, that it committed and what it
 * answered, so a write that committed always leaves that mark, even when its answer is lost; and
 * on a retry after such a loss, a transaction that already committed answers its recorded
 * result instead of running again.
 */
export interface TransactionJournal {
  /** How many transactions the request has started: the next one's index. */
  started: number;
  /** The result the `index`-th transaction of an earlier attempt committed, if it did. */
  committed(index: number): { result: unknown } | undefined;
  /** Records `result` as the `index`-th transaction's, by a statement run in that transaction. */
  record(
    index: number,
    result: unknown,
    execute: (sql: string, params: unknown[]) => Promise<unknown>,
  ): Promise<void>;
}

/**
 * The part of REQUEST_TIMEOUT_MS a request's waits may take: the rest, a fifth of it between
 * 250 ms and 2 s, is kept for answering once they are over, so the 503 is sent within the
 * request timeout on a busy machine (with a tenth, 20 requests failing at once in a test
 * process under load answered up to 360 ms past their deadline, past the timeout).
 */
export function waitBudgetMs(requestTimeoutMs: number): number {
  return requestTimeoutMs - Math.min(2000, Math.max(250, Math.round(requestTimeoutMs / 5)));
}

const storage = new AsyncLocalStorage<RequestScope>();

/** The scope of the request whose work is running now, if any. */
export function currentRequest(): RequestScope | undefined {
  return storage.getStore();
}

/** Runs `fn` (and all the work it starts) inside `scope`. */
export function runInRequest<T>(scope: RequestScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/** Counts every SQL statement the ORM sends, in total and for the request in scope. */
export class QueryCounter {
  total = 0;
  /** Also sees every statement, when set (the answer cache records what requests read). */
  observer: ((sql: string) => void) | null = null;

  /** The ORM's `onQuery` hook: counts the statement and sends it unchanged. */
  readonly record = (sql: string): string => {
    this.total += 1;
    const scope = currentRequest();
    if (scope) {
      scope.statements += 1;
    }
    this.observer?.(sql);
    return sql;
  };
}
