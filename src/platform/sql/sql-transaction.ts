import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from 'knex';

/** The part of a pooled pg connection a transaction uses. */
interface PgConnection {
  query(text: string): Promise<unknown>;
}

/** The pool of knex's client, as runStatement reaches it (`transaction.client`). */
interface ConnectionSource {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): unknown;
}

/**
 * Runs `work` in a transaction whose statements all go through `selectRows`/`executeRows` (every
 * store method a transaction calls; no ORM reads or flushes). It is BEGIN
 * and COMMIT (ROLLBACK when `work` throws) on one pooled connection, which the entity manager
 * given to `work` answers as its transaction's: the ORM's own transaction forks a unit of work,
 * builds a knex transaction client and flushes at commit, measured at 340 µs of CPU per
 * transaction against 93 µs for this one (a `select 1` in each, 4 at a time).
 */
export async function inSqlTransaction<T>(
  em: EntityManager,
  work: (tx: EntityManager) => Promise<T>,
): Promise<T> {
  const knex = em.getConnection().getKnex();
  const pool = knex.client as ConnectionSource;
  const convert = (error: unknown): Error => em.getDriver().convertException(error as Error);
  let connection: PgConnection;
  try {
    connection = (await pool.acquireConnection()) as PgConnection;
  } catch (error) {
    throw convert(error);
  }
  try {
    await connection.query('begin');
  } catch (error) {
    pool.releaseConnection(connection);
    throw convert(error);
  }
  // runStatement takes the transaction's connection from `transaction.client`; releasing it
  // there is left to us.
  const own: ConnectionSource = {
    acquireConnection: () => Promise.resolve(connection),
    releaseConnection: () => undefined,
  };
  const tx = em.fork();
  tx.setTransactionContext({ client: own } as unknown as Knex.Transaction);
  try {
    let result: T;
    try {
      result = await work(tx);
    } catch (error) {
      // A lost connection cannot roll back; the pool discards it, and the server ends it.
      await connection.query('rollback').catch(() => undefined);
      throw error;
    }
    try {
      await connection.query('commit');
    } catch (error) {
      throw convert(error);
    }
    return result;
  } finally {
    pool.releaseConnection(connection);
  }
}
