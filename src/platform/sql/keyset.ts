import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationFailedError } from '../shared/errors';
import { arrayLiteral, type RecordReader, type Row, selectRows } from './rows';

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

/** Conditions joined by `and`, the empty ones left out. */
const allOf = (...conditions: string[]): string => conditions.filter(Boolean).join(' and ');

const placeholders = <R>(order: KeysetOrder<R>): string =>
  `(${order.columns.map((column) => `?::${column.type}`).join(', ')})`;

/** A slice request made into SQL: the conditions and order, and how to read the rows back. */
interface SlicePlan {
  size: number;
  backwards: boolean;
  conditions: string[];
  params: unknown[];
  orderBy: string;
  ascending: boolean;
}

function planSlice<R>(query: ListQuery, order: KeysetOrder<R>, request: SliceRequest): SlicePlan {
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
  return { size, backwards, conditions, params, orderBy, ascending };
}

/** The slice in `rows`, read with one row more than asked for. */
function sliceOf<R>(
  rows: readonly Row[],
  plan: SlicePlan,
  order: KeysetOrder<R>,
  reader: RecordReader<R>,
  request: SliceRequest,
): Slice<R> {
  const { size, backwards } = plan;
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
  const plan = planSlice(query, order, request);
  const sql = `${query.select} where ${allOf(...plan.conditions)} order by ${plan.orderBy} limit ?`;
  const rows = await selectRows(em, sql, [...plan.params, plan.size + 1], {
    prepared: query.prepared ?? true,
  });
  return sliceOf(rows, plan, order, reader, request);
}

/** A list of each of several parents: {@link ListQuery} over the rows whose `parent` is one's id. */
export interface ParentListQuery extends ListQuery {
  /** The column holding the parent's id (a uuid), e.g. `p."meeting_id"`. */
  parent: string;
}

/** The alias of the parent's id in the rows of {@link readSlices}. */
const PARENT = '__parent';

/** One parent's list as a {@link ListQuery}. */
const ofParent = (query: ParentListQuery, id: string): ListQuery => ({
  ...query,
  where: allOf(`${query.parent} = ?`, query.where),
  params: [id, ...query.params],
});

/**
 * The same slice of each parent's list, in one statement: one parent reads as {@link readSlice}
 * does; several are read by a lateral join, each parent's rows by the same ordered, limited index
 * scan a single read makes (a window over all their rows would read every row of every parent).
 */
export async function readSlices<R>(
  em: EntityManager,
  query: ParentListQuery,
  parentIds: readonly string[],
  order: KeysetOrder<R>,
  reader: RecordReader<R>,
  request: SliceRequest,
): Promise<Map<string, Slice<R>>> {
  if (parentIds.length === 1) {
    const id = parentIds[0] as string;
    return new Map([[id, await readSlice(em, ofParent(query, id), order, reader, request)]]);
  }
  const plan = planSlice(query, order, request);
  const outerOrder = order.columns
    .map((column) => `s.${reader.output(column.key)} ${plan.ascending ? 'asc' : 'desc'}`)
    .join(', ');
  const where = allOf(`${query.parent} = k."id"`, ...plan.conditions);
  const sql =
    `select k."id" as "${PARENT}", s.* from unnest(?::uuid[]) with ordinality as k("id", "n") ` +
    `cross join lateral (${query.select} where ${where} order by ${plan.orderBy} limit ?) s ` +
    `order by k."n", ${outerOrder}`;
  const rows = await selectRows(em, sql, [arrayLiteral(parentIds), ...plan.params, plan.size + 1], {
    prepared: query.prepared ?? true,
  });
  const byParent = new Map<string, Row[]>(parentIds.map((id) => [id, []]));
  for (const row of rows) {
    byParent.get(row[PARENT] as string)?.push(row);
  }
  return new Map(
    [...byParent].map(([id, own]) => [id, sliceOf(own, plan, order, reader, request)]),
  );
}

/** How many rows each parent's list holds in all, in one statement. */
export async function countLists(
  em: EntityManager,
  query: ParentListQuery,
  parentIds: readonly string[],
): Promise<Map<string, number>> {
  if (parentIds.length === 1) {
    const id = parentIds[0] as string;
    return new Map([[id, await countList(em, ofParent(query, id))]]);
  }
  const from = query.select.slice(query.select.indexOf(' from '));
  const rows = await selectRows(
    em,
    `select ${query.parent} as "${PARENT}", count(*)::int as "total"${from} ` +
      `where ${allOf(`${query.parent} = any(?::uuid[])`, query.where)} group by ${query.parent}`,
    [arrayLiteral(parentIds), ...query.params],
    { prepared: query.prepared ?? true },
  );
  const totals = new Map<string, number>(parentIds.map((id) => [id, 0]));
  for (const row of rows) {
    totals.set(row[PARENT] as string, Number(row['total']));
  }
  return totals;
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
