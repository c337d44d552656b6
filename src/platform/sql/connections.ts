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
   * Whether statements may be kept prepared on a connection. Not behind a transaction pooler:
   * each transaction may get another server connection, where a statement named on the last one
   * does not exist (pgbouncer before 1.21 has no support for named statements at all).
   */
  readonly namedStatements: boolean;
}

/** The pool of each ORM, by its configuration (which every fork of its entity managers shares). */
const pools = new WeakMap<EntityManager['config'], StatementPool>();

/** The connection of each entity manager given to the work of an SQL transaction. */
const transactions = new WeakMap<EntityManager, StatementConnection>();

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
  transactions.set(tx, connection);
}

/** The SQL transaction's connection `em` was given, if it was. */
export function transactionOf(em: EntityManager): StatementConnection | undefined {
  return transactions.get(em);
}
