import type { Pool, PoolClient } from 'pg';

/** A value bound to a query parameter. Timestamps travel as ISO strings. */
export type SqlValue = string | number | boolean | null;

/** One multi-row INSERT: a table, its columns, and rows in column order. */
export interface InsertBatch {
  table: string;
  columns: readonly string[];
  rows: readonly (readonly SqlValue[])[];
  /** Skip rows that would break a unique constraint instead of failing. */
  ignoreConflicts?: boolean;
}

const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

/** `?` placeholders numbered for PostgreSQL (`$1`, `$2`, …); no `?` may appear otherwise. */
const numbered = (sql: string): string => {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
};

/** Runs a raw, parameterized query (`?` placeholders) on the pool or one of its connections. */
export async function query(
  db: Pool | PoolClient,
  sql: string,
  bindings: readonly SqlValue[] = [],
): Promise<Record<string, unknown>[]> {
  const result = await db.query<Record<string, unknown>>(numbered(sql), [...bindings]);
  return result.rows;
}

/** Runs a query that answers one integer column `n`. */
export async function queryCount(
  db: Pool | PoolClient,
  sql: string,
  bindings: readonly SqlValue[] = [],
): Promise<number> {
  const [row] = await query(db, sql, bindings);
  return Number(row?.['n'] ?? 0);
}

/**
 * Inserts the batch with one parameterized multi-row INSERT in its own transaction and returns
 * how many rows went in (conflicting rows skipped with ignoreConflicts do not count).
 */
export async function insertBatch(pool: Pool, batch: InsertBatch): Promise<number> {
  if (batch.rows.length === 0) {
    return 0;
  }
  const width = batch.columns.length;
  const tuple = `(${new Array<string>(width).fill('?').join(',')})`;
  const bindings: SqlValue[] = [];
  const tuples: string[] = [];
  for (const row of batch.rows) {
    if (row.length !== width) {
      throw new RangeError(`${batch.table}: a row has ${row.length} values for ${width} columns`);
    }
    tuples.push(tuple);
    for (const value of row) {
      bindings.push(value);
    }
  }
  const sql =
    `with inserted as (insert into ${quote(batch.table)} (${batch.columns.map(quote).join(', ')}) ` +
    `values ${tuples.join(',')}${batch.ignoreConflicts ? ' on conflict do nothing' : ''} returning 1) ` +
    `select count(*)::int as n from inserted`;
  const client = await pool.connect();
  try {
    await client.query('begin');
    const inserted = await queryCount(client, sql, bindings);
    await client.query('commit');
    return inserted;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Pulls batches from a (synchronous, deterministic) source and runs up to `concurrency` of them
 * at a time. Stops taking new batches after the first failure and rethrows it.
 */
export async function runBatches<T>(
  source: Iterable<T>,
  concurrency: number,
  work: (batch: T) => Promise<void>,
): Promise<void> {
  const iterator = source[Symbol.iterator]();
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed) {
      const next = iterator.next();
      if (next.done) {
        return;
      }
      try {
        await work(next.value);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, concurrency) }, () => worker());
  const results = await Promise.allSettled(workers);
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) {
    throw rejected.reason;
  }
}

/** Groups a stream of rows into arrays of at most `size` rows. */
export function* chunks<T>(rows: Iterable<T>, size: number): Generator<T[]> {
  let chunk: T[] = [];
  for (const row of rows) {
    chunk.push(row);
    if (chunk.length >= size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) {
    yield chunk;
  }
}
