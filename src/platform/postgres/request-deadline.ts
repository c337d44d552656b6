import { connect } from 'node:net';
import type { Pool, PoolClient } from 'pg';
import { currentRequest } from '../observability/request-tracking';
import { DeadlineExceededError } from '../shared/db-errors';
import { DatabaseUnavailableError } from '../shared/errors';

/**
 * What a CancelRequest needs of a connection: where it goes, and the key the server gave the
 * session (the protocol's BackendKeyData, which pg keeps on the client as `processID` and
 * `secretKey`; @types/pg does not declare them).
 */
interface BackendKey {
  host: string;
  port: number;
  processID?: number | null;
  secretKey?: number | null;
}

/** How long the current request may still wait, in ms; undefined outside a bounded request. */
function remainingMs(): number | undefined {
  const deadline = currentRequest()?.deadline;
  return deadline === undefined || deadline === Infinity ? undefined : deadline - performance.now();
}

const deadlineReached = (during: DeadlineExceededError['during']): DatabaseUnavailableError =>
  new DatabaseUnavailableError(new DeadlineExceededError(during));

/** Whether an error is a request's deadline (for a connection or a statement). */
export function isDeadlineReached(error: unknown): boolean {
  return error instanceof DatabaseUnavailableError && error.cause instanceof DeadlineExceededError;
}

// A rollback still runs after the deadline: it ends the transaction a cancelled statement left.
const ROLLBACK = /^\s*rollback\b/i;

/**
 * Asks the server to cancel what the connection runs (the protocol's CancelRequest, sent on a
 * connection of its own: the busy one cannot be used, and a pooled one may not be free). Costs
 * nothing until a deadline is reached, where `SET statement_timeout` before each statement
 * would cost a round trip on every one. Through pgbouncer the pid and key are pgbouncer's, which
 * passes the cancel on to the server connection running the client's statement.
 */
function cancelOnServer(client: PoolClient): void {
  const { host, port, processID, secretKey } = client as PoolClient & BackendKey;
  if (processID == null || secretKey == null) {
    return;
  }
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(80877102, 4); // the CancelRequest code
  message.writeInt32BE(processID, 8);
  message.writeInt32BE(secretKey, 12);
  const socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
  socket.setTimeout(5_000, () => socket.destroy());
  socket.on('error', () => undefined); // best effort: statement_timeout still bounds it
  // Written, not ended: the receiver closes the connection once it has passed the cancel on, and
  // pgbouncer drops a cancel whose sender closes first (as it always did here, measured on 1.18).
  socket.write(message);
}

/**
 * A pooled connection for the current request, waited for no longer than what is left of its
 * deadline (RequestScope.deadline); outside a request, as long as the pool's own timeout. A wait
 * the deadline ended leaves the pool's queue when its turn comes: the connection it is handed
 * then goes straight back. `onDeadline` hears each wait a deadline ended.
 */
export async function acquireByDeadline(pool: Pool, onDeadline: () => void): Promise<PoolClient> {
  const remaining = remainingMs();
  if (remaining === undefined) {
    return pool.connect();
  }
  if (remaining <= 0) {
    onDeadline();
    throw deadlineReached('a pooled connection');
  }
  const acquiring = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(deadlineReached('a pooled connection')), Math.ceil(remaining));
  });
  try {
    return await Promise.race([acquiring, expired]);
  } catch (error) {
    if (isDeadlineReached(error)) {
      onDeadline();
      acquiring.then(
        (client) => client.release(),
        () => undefined,
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a statement on `client`, bounded by the request's deadline: at the deadline the statement
 * is cancelled on the server and the caller gets a 503 at once (not when the cancel lands), and
 * `expire` is told, so that the connection is destroyed rather than pooled again: no later
 * statement of another request can be the one a late cancel reaches. Outside a request
 * (subscriptions, start-up) the session's statement_timeout bounds statements alone.
 */
export function statementByDeadline<T>(
  client: PoolClient,
  text: string,
  run: () => Promise<T>,
  onDeadline: () => void,
  expire: () => void,
): Promise<T> {
  const remaining = remainingMs();
  if (remaining === undefined) {
    return run();
  }
  if (remaining <= 0 && !ROLLBACK.test(text)) {
    onDeadline();
    return Promise.reject(deadlineReached('a statement'));
  }
  return new Promise<T>((resolve, reject) => {
    let expired = false;
    const timer = setTimeout(
      () => {
        expired = true;
        onDeadline();
        expire();
        cancelOnServer(client);
        reject(deadlineReached('a statement'));
      },
      Math.max(remaining, 1),
    );
    run().then(
      (result) => {
        clearTimeout(timer);
        if (!expired) {
          resolve(result);
        }
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!expired) {
          reject(error);
        }
      },
    );
  });
}
