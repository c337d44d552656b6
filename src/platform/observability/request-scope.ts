import { AsyncLocalStorage } from 'node:async_hooks';

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
   * When (performance.now()) the request's waits end: every wait for a pooled connection, a
   * statement or a lock takes from this one budget (src/platform/postgres/request-deadline.ts), so a request
   * answers 503 by then however many statements it sends. Infinity: no bound (an event stream).
   */
  deadline: number;
  /** Whether this request's 503 has been logged (a GraphQL answer may carry several errors). */
  unavailableLogged: boolean;
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
