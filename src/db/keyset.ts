import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationFailedError } from '../shared/errors';
import { type RecordReader, type Row, selectRows } from './rows';

/** One column of a list's order: its SQL, the record key holding its value, its SQL type. */
export interface OrderColumn<R> {
  sql: string;
  key: keyof R & string;
  type: 'timestamptz' | 'uuid' | 'text';
}

/**
 * A list's order: columns compared as one row value, all in one direction, ending with a unique
 * column so every row has its own position (a keyset cursor never skips nor repeats a row).
 */
export interface KeysetOrder<R> {
  columns: readonly OrderColumn<R>[];
  direction: 'asc' | 'desc';
}

/** The order of records by when they were created, then id (every table has both columns). */
export const byCreation = <R extends { createdAt: string; id: string }>(
  alias: string,
  direction: 'asc' | 'desc',
): KeysetOrder<R> => ({
  columns: [
    { sql: `${alias}."created_at"`, key: 'createdAt', type: 'timestamptz' },
    { sql: `${alias}."id"`, key: 'id', type: 'uuid' },
  ],
  direction,
});

/** Which slice of a list a client asks for (Relay cursor connections). */
export interface SliceRequest {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** A slice of a list, in the list's order, with what lies beyond it. */
export interface Slice<R> {
  records: R[];
  /** The rows the records were read from, for records joined to them. */
  rows: Row[];
  cursors: string[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/** A filtered list: `select … from … where <where>` over `params`. */
export interface ListQuery {
  select: string;
  where: string;
  params: readonly unknown[];
  /** False for texts whose plan depends on the values (see selectRows). */
  prepared?: boolean;
}

/** Slices have this many rows when a client names no size. */
export const DEFAULT_SLICE_SIZE = 20;

function encodeCursor(values: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** A cursor's values, or a BAD_USER_INPUT naming the argument it came in. */
function decodeCursor<R>(cursor: string, order: KeysetOrder<R>, argument: string): unknown[] {
  try {
    const values: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(values) &&
      values.length === order.columns.length &&
      values.every((value) => typeof value === 'string')
    ) {
      return values;
    }
  } catch {
    // Not base64url JSON: reported below like any other foreign cursor.
  }
  throw new ValidationFailedError({ [argument]: 'INVALID_FORMAT' });
}

const rowOf = <R>(order: KeysetOrder<R>): string =>
  `(${order.columns.map((column) => column.sql).join(', ')})`;

const placeholders = <R>(order: KeysetOrder<R>): string =>
  `(${order.columns.map((column) => `?::${column.type}`).join(', ')})`;

/**
 * Reads one slice of a list by keyset: rows after (or before) a cursor's position, one more than
 * asked to learn whether the list goes on. `last` reads backwards and answers in the list's order.
 */
export async function readSlice<R>(
  em: EntityManager,
  query: ListQuery,
  order: KeysetOrder<R>,
  reader: RecordReader<R>,
  request: SliceRequest,
): Promise<Slice<R>> {
  const backwards = request.last !== undefined && request.last !== null;
  if (backwards && request.first !== undefined && request.first !== null) {
    // One slice is read one way: a page cannot be both the first n and the last n.
    throw new ValidationFailedError({ last: 'INVALID_CHOICE' });
  }
  const size = (backwards ? request.last : request.first) ?? DEFAULT_SLICE_SIZE;
  const cursor = backwards ? request.before : request.after;
  // Reading backwards flips the comparison and the order, then the rows are turned around.
  const ascending = (order.direction === 'asc') !== backwards;
  const conditions = [query.where];
  const params = [...query.params];
  if (cursor) {
    conditions.push(`${rowOf(order)} ${ascending ? '>' : '<'} ${placeholders(order)}`);
    params.push(...decodeCursor(cursor, order, backwards ? 'before' : 'after'));
  }
  const orderBy = order.columns
    .map((column) => `${column.sql} ${ascending ? 'asc' : 'desc'}`)
    .join(', ');
  const sql = `${query.select} where ${conditions.join(' and ')} order by ${orderBy} limit ?`;
  const rows = await selectRows(em, sql, [...params, size + 1], {
    prepared: query.prepared ?? true,
  });
  const kept = rows.slice(0, size);
  const records: R[] = [];
  for (const row of kept) {
    const record = reader.read(row);
    if (record) {
      records.push(record);
    }
  }
  if (backwards) {
    records.reverse();
    kept.reverse();
  }
  const more = rows.length > size;
  return {
    records,
    rows: kept,
    cursors: records.map((record) =>
      encodeCursor(order.columns.map((column) => record[column.key])),
    ),
    // Past a cursor there were rows before it; whether rows remain the other way is not read.
    hasNextPage: backwards ? Boolean(request.before) : more,
    hasPreviousPage: backwards ? more : Boolean(request.after),
  };
}

/** How many rows a list holds in all, whatever slice was read. */
export async function countList(em: EntityManager, query: ListQuery): Promise<number> {
  const from = query.select.slice(query.select.indexOf(' from '));
  const rows = await selectRows(
    em,
    `select count(*)::int as "total"${from} where ${query.where}`,
    [...query.params],
    { prepared: query.prepared ?? true },
  );
  return Number(rows[0]?.['total'] ?? 0);
}
