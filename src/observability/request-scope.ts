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
