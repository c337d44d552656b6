import type { EntityManager } from '@mikro-orm/postgresql';
import type { CountAttempt } from '../auth/attempt-limiter';
import type { AuthState } from '../auth/tokens';
import type { LiveScope } from '../live/live-scope';

/**
 * Data access over one entity manager (a request's, or a transaction's): the stores `S`, and
 * transactions handing `work` the same stores over the transaction. A module types its services
 * against the stores it uses (its own and its foundations'), never against every module's.
 */
export type StoreSet<S> = { readonly [K in keyof S]: S[K] } & {
  /**
   * Runs `work` in a transaction, with stores over it; commits when it returns, rolls back when
   * it throws. Its work calls the stores' statement methods only (every write and every read
   * under a lock is one): on a server, BEGIN and COMMIT on one pooled connection, without the
   * ORM's unit of work (src/platform/sql/sql-transaction.ts).
   */
  transaction<T>(work: (stores: StoreSet<S>) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in the ORM's own transaction: for writes through the ORM's unit of work (a
   * follow, a profile edit) that log a change with them. Dearer than `transaction`.
   */
  ormTransaction<T>(work: (stores: StoreSet<S>) => Promise<T>): Promise<T>;
};

/**
 * What one GraphQL operation (from /graphql or the REST facade) works with, as a module sees it:
 * the services `S` and loaders `L` it uses, and the caller `U`. The app's context holds every
 * module's; a module names only what it reads.
 */
export interface OperationContext<S, L, U> {
  em: EntityManager;
  auth: AuthState<U>;
  loaders: L;
  services: S;
}

/** An operation's context with a subscription's events: the notices `N` of its WebSocket. */
export interface LiveContext<S, L, U, N> extends OperationContext<S, L, U> {
  /** A subscription's events (WebSocket only); null for queries and mutations over HTTP. */
  live: LiveScope<N> | null;
}

/**
 * What a module's service of one request is built from: the process's dependencies `D` it needs,
 * the stores `S` and loaders `L` of the request, and the services `V` it builds on.
 */
export interface ServiceParts<S, L = unknown, D = unknown, V = unknown> {
  readonly deps: D;
  readonly stores: S;
  readonly loaders: L;
  /** Sign-in attempts, counted against the request's address. */
  readonly limit: CountAttempt;
  readonly services: V;
}
