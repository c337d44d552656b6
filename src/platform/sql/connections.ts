import type { EntityManager } from '@mikro-orm/postgresql';

/** A statement as raw SQL sends it: numbered placeholders, and a name when it stays prepared. */
export interface Statement {
  text: string;
  values?: unknown[];
  name?: string;
}

/** A statement's answer, rows as arrays in the order of `fields`. */
export interface ArrayResult {
  rows: unknown[][];
  fields: ReadonlyArray<{ name: string }>;
}

/** One pooled connection, as raw statements use it (src/platform/postgres/pool.ts). */
export interface StatementConnection {
  /** Runs one statement (bounded by the current request's deadline). */
  run(statement: Statement): Promise<ArrayResult>;
  /** Gives the connection back to the pool (or ends it, when a deadline left it busy). */
  release(): void;
}

/** The pool an ORM's connections come from, as raw statements reach it. */
export interface StatementPool {
  connect(): Promise<StatementConnection>;
  /**
   * A connection for one read outside any transaction, which may be a read replica's
   * (src/platform/postgres/replicas/read-routing.ts); absent: `connect`.
   */
  connectForRead?(): Promise<StatementConnection>;
  /**
   * Whether statements may be kept prepared on a connection. Not behind a transaction pooler:
   * each transaction may get another server connection, where a statement named on the last one
   * does not exist (pgbouncer before 1.21 has no support for named statements at all).
   */
  readonly namedStatements: boolean;
}

/** The pool of each ORM, by its configuration (which every fork of its entity managers shares). */
const pools = new WeakMap<EntityManager['config'], StatementPool>();

/**
 * A write a transaction holds back to send with its next statement, as a common table expression
 * of it (`?` placeholders, its values in order); or alone, when none follows, before COMMIT.
 */
export interface DeferredWrite {
  sql: string;
  params: readonly unknown[];
}

/** An SQL transaction's connection, and the writes it holds back (each read when it is sent). */
interface BoundTransaction {
  connection: StatementConnection;
  deferred: Array<() => DeferredWrite>;
}

/** The transaction of each entity manager given to the work of an SQL transaction. */
const transactions = new WeakMap<EntityManager, BoundTransaction>();

/** Makes `pool` the one raw statements of `em` and its forks run on. */
export function useStatementPool(em: EntityManager, pool: StatementPool): void {
  pools.set(em.config, pool);
}

/** The pool raw statements of `em` run on. */
export function statementPoolOf(em: EntityManager): StatementPool {
  const pool = pools.get(em.config);
  if (!pool) {
    throw new Error('this ORM was opened without a statement pool (openDatabase sets one)');
  }
  return pool;
}

/** Makes `connection` the one raw statements of `tx` run on (an SQL transaction's). */
export function bindTransaction(tx: EntityManager, connection: StatementConnection): void {
  transactions.set(tx, { connection, deferred: [] });
}

/** The SQL transaction's connection `em` was given, if it was. */
export function transactionOf(em: EntityManager): StatementConnection | undefined {
  return transactions.get(em)?.connection;
}

/**
 * Holds a write back until the SQL transaction of `em` sends its next statement, which then
 * carries it (one round trip fewer), or until its commit; `write` is read when it is sent, so what
 * it writes may still grow until then. Answers false, holding nothing, when `em` has no SQL
 * transaction: the caller sends the write itself.
 */
export function deferWrite(em: EntityManager, write: () => DeferredWrite): boolean {
  const bound = transactions.get(em);
  bound?.deferred.push(write);
  return bound !== undefined;
}

/** The writes held back in the SQL transaction of `em`, now to be sent (none are kept). */
export function takeDeferredWrites(em: EntityManager): DeferredWrite[] {
  const bound = transactions.get(em);
  if (!bound || bound.deferred.length === 0) {
    return [];
  }
  const writes = bound.deferred.map((write) => write());
  bound.deferred = [];
  return writes;
}
