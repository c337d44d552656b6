import { connect } from 'node:net';
import { KnexTimeoutError } from 'knex';
import { currentRequest } from '../observability/request-tracking';
import { DeadlineExceededError } from '../shared/db-errors';
import { DatabaseUnavailableError } from '../shared/errors';

/** The part of a pg client (one pooled connection) the deadline reads and wraps. */
interface PgClient {
  query: (...args: unknown[]) => unknown;
  host: string;
  port: number;
  processID: number | null;
  secretKey: number | null;
  /** knex's mark of a connection it must not hand out again (checked when it is acquired). */
  __knex__disposed?: unknown;
}

/** The part of tarn's pool the deadline sets, and the saturation watch reads. */
export interface PoolInternals {
  acquireTimeoutMillis: number;
  numUsed(): number;
  numFree(): number;
  numPendingCreates(): number;
  max: number;
  on(event: 'createSuccess' | 'createFail', listener: (id: number, value: unknown) => void): void;
}

/** The part of knex's client the deadline wraps. */
export interface KnexClientInternals {
  pool: PoolInternals | undefined;
  acquireConnection(): Promise<unknown>;
}

/** How long the current request may still wait, in ms; undefined outside a bounded request. */
function remainingMs(): number | undefined {
  const deadline = currentRequest()?.deadline;
  return deadline === undefined || deadline === Infinity ? undefined : deadline - performance.now();
}

const deadlineReached = (during: DeadlineExceededError['during']): DatabaseUnavailableError =>
  new DatabaseUnavailableError(new DeadlineExceededError(during));

// A rollback still runs after the deadline: it ends the transaction a cancelled statement left.
const ROLLBACK = /^\s*rollback\b/i;

/**
 * Asks the server to cancel what the connection runs (the protocol's CancelRequest, sent on a
 * connection of its own: the busy one cannot be used, and a pooled one may not be free). Costs
 * nothing until a deadline is reached, where `SET statement_timeout` before each statement
 * would cost a round trip on every one. Through pgbouncer the pid and key are pgbouncer's, which
 * passes the cancel on to the server connection running the client's statement.
 */
function cancelOnServer(client: PgClient): void {
  const { processID, secretKey } = client;
  if (processID === null || secretKey === null) {
    return;
  }
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(80877102, 4); // the CancelRequest code
  message.writeInt32BE(processID, 8);
  message.writeInt32BE(secretKey, 12);
  const socket = client.host.startsWith('/')
    ? connect(`${client.host}/.s.PGSQL.${client.port}`)
    : connect(client.port, client.host);
  socket.setTimeout(5_000, () => socket.destroy());
  socket.on('error', () => undefined); // best effort: statement_timeout still bounds it
  // Written, not ended: the receiver closes the connection once it has passed the cancel on, and
  // pgbouncer drops a cancel whose sender closes first (as it always did here, measured on 1.18).
  socket.write(message);
}

/**
 * The connection's `query`, bounded by the request's deadline: at the deadline the statement is
 * cancelled on the server and the caller gets a 503 at once (not when the cancel lands). The
 * connection is then marked for knex to discard, so no later statement of another request can
 * be the one a late cancel reaches. Outside a request (subscriptions, start-up) the session's
 * statement_timeout bounds statements alone.
 */
function boundQuery(
  client: PgClient,
  query: PgClient['query'],
  onDeadline: () => void,
): PgClient['query'] {
  return function (this: PgClient, ...args: unknown[]): unknown {
    const remaining = remainingMs();
    const [config] = args;
    const submittable = typeof (config as { submit?: unknown } | null)?.submit === 'function';
    if (remaining === undefined || submittable) {
      return query.apply(this, args);
    }
    const text = typeof config === 'string' ? config : (config as { text?: unknown }).text;
    const last = args[args.length - 1];
    const callback = typeof last === 'function' ? (last as (error: unknown) => void) : undefined;
    if (remaining <= 0 && !(typeof text === 'string' && ROLLBACK.test(text))) {
      onDeadline();
      const error = deadlineReached('a statement');
      if (callback) {
        process.nextTick(callback, error);
        return undefined;
      }
      return Promise.reject(error);
    }
    let expired = false;
    let answerEarly: ((error: unknown) => void) | undefined;
    const timer = setTimeout(
      () => {
        expired = true;
        onDeadline();
        client.__knex__disposed = 'request deadline';
        cancelOnServer(client);
        answerEarly?.(deadlineReached('a statement'));
      },
      Math.max(remaining, 1),
    );
    if (callback) {
      // knex's form: the callback is answered once, by whichever comes first.
      answerEarly = callback;
      args[args.length - 1] = (...results: unknown[]): void => {
        clearTimeout(timer);
        if (!expired) {
          (callback as (...values: unknown[]) => void)(...results);
        }
      };
      return query.apply(this, args);
    }
    const running = query.apply(this, args) as Promise<unknown>;
    return new Promise((resolve, reject) => {
      answerEarly = reject;
      running.then(
        (result) => {
          clearTimeout(timer);
          resolve(result);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  };
}

const BOUND = Symbol('bound by the request deadline');

/** The connection, its `query` bounded (once: the first time it is handed out). */
function bind(connection: unknown, onDeadline: () => void): unknown {
  const client = connection as PgClient & { [BOUND]?: true };
  if (!client[BOUND]) {
    client[BOUND] = true;
    client.query = boundQuery(client, client.query, onDeadline);
  }
  return connection;
}

/**
 * Bounds every wait of a request for the database by its deadline (RequestScope.deadline): the
 * wait for a pooled connection (tarn's timeout, set to what is left of the budget when the
 * request asks) and every statement on a pooled connection (cancelled at the deadline). One
 * budget for the whole request, where a bound per wait let a request of several statements wait
 * each one's bound again (22.9 s behind a table locked for 60 s). Every statement, the ORM's and
 * ours (src/platform/sql/rows.ts, sql-transaction.ts), runs on a connection acquired here.
 * `onDeadline` hears each wait a deadline ended (the pool's saturation watch).
 */
export function boundByRequestDeadline(client: KnexClientInternals, onDeadline: () => void): void {
  const acquire = client.acquireConnection.bind(client);
  const bound = (connection: unknown): unknown => bind(connection, onDeadline);
  client.acquireConnection = () => {
    const remaining = remainingMs();
    const pool = client.pool;
    if (remaining === undefined || !pool) {
      return acquire().then(bound);
    }
    if (remaining <= 0) {
      onDeadline();
      return Promise.reject(deadlineReached('a pooled connection'));
    }
    // knex reads its pool's timeout as it queues the request, synchronously: this request's
    // wait is what is left of its budget, and the next one's the pool's own again.
    const poolTimeout = pool.acquireTimeoutMillis;
    pool.acquireTimeoutMillis = Math.ceil(remaining);
    let acquiring: Promise<unknown>;
    try {
      acquiring = acquire();
    } finally {
      pool.acquireTimeoutMillis = poolTimeout;
    }
    return acquiring.then(bound, (error: unknown) => {
      if (error instanceof KnexTimeoutError) {
        onDeadline();
        throw deadlineReached('a pooled connection');
      }
      throw error;
    });
  };
}
