import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type ControlledTransaction } from 'kysely';
import {
  type ArrayResult,
  type DeferredWrite,
  type Statement,
  statementPoolOf,
  takeDeferredWrites,
  transactionOf,
} from './connections';

/** A row as the driver answers it: column alias → value. */
export type Row = Readonly<Record<string, unknown>>;

/** Where a property of a record is read from: its column, and whether it holds a timestamp. */
export interface Column {
  name: string;
  timestamp?: boolean;
}

/** '2026-11-22 04:21:03[.fraction]+00': PostgreSQL's text of a UTC timestamp. */
function isUtcText(text: string): boolean {
  const n = text.length;
  return (
    n >= 22 &&
    text.charCodeAt(10) === 0x20 && // ' '
    text.charCodeAt(n - 3) === 0x2b && // '+'
    text.charCodeAt(n - 2) === 0x30 &&
    text.charCodeAt(n - 1) === 0x30
  );
}

/**
 * A timestamp as ISO 8601 UTC text with milliseconds, as the API writes it. PostgreSQL answers
 * text (the ORM turns pg's own parsing off; sessions run in UTC), '2026-11-22 04:21:03.032145+00',
 * rewritten here without building a Date (a Date, as the ORM's entities hold, is converted too).
 * The common case, a UTC time with milliseconds or more, is two slices: measured on a user record
 * with two timestamps, 963 → 691 bytes allocated and 640 → 500 ns.
 */
export function toIsoTimestamp(value: unknown): string {
  if (value instanceof Date) {
    return value.toISOString();
  }
  const text = String(value);
  if (isUtcText(text)) {
    if (text.length >= 26 && text.charCodeAt(19) === 0x2e) {
      // Milliseconds or more ('.032', '.032145'): cut to milliseconds.
      return `${text.slice(0, 10)}T${text.slice(11, 23)}Z`;
    }
    const fraction = text.charAt(19) === '.' ? text.slice(20, text.length - 3) : '';
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${fraction}000`.slice(0, 3)}Z`;
  }
  // Another offset: JavaScript wants its minutes ('+02' → '+02:00').
  const iso = text.replace(' ', 'T');
  const sign = iso.charAt(iso.length - 3);
  return new Date(sign === '+' || sign === '-' ? `${iso}:00` : iso).toISOString();
}

/** A timestamp column's value as the API writes it; null stays null. */
function timestampOrNull(value: unknown): string | null {
  return value === null ? null : toIsoTimestamp(value);
}

/** Builds a record from a row (with the timestamp conversion at hand). */
type BuildRecord = (row: Row, timestamp: typeof timestampOrNull) => Record<string, unknown>;

/**
 * A function of `parameters` that answers one object literal: each property named (quoted as
 * JSON) and valued by its expression, in order. A literal is a plain object of one fixed shape;
 * an object built by adding properties one by one copies its property store as it grows, and pg
 * builds its rows that way, which V8 turns into hash tables past a dozen columns. Names come from
 * our own entities and select lists.
 */
function literalBuilder<F>(
  parameters: readonly string[],
  properties: ReadonlyArray<readonly [name: string, expression: string]>,
): F {
  const body = properties.map(([name, expression]) => `${JSON.stringify(name)}: ${expression}`);
  return new Function(...parameters, `return { ${body.join(', ')} };`) as F;
}

/**
 * A record built as one object literal, its properties in the columns' order: measured on a user
 * record (15 properties, two timestamps) against a loop adding them, 691 → 474 bytes allocated
 * and 500 → 110 ns.
 */
function recordBuilder(entries: ReadonlyArray<readonly [string, string, Column]>): BuildRecord {
  return literalBuilder<BuildRecord>(
    ['row', 'timestamp'],
    entries.map(([key, aliased, spec]) => {
      const value = `row[${JSON.stringify(aliased)}]`;
      return [key, spec.timestamp ? `timestamp(${value})` : value] as const;
    }),
  );
}

/**
 * Reads plain records of one table from rows, without the ORM: hot read paths answer many rows and
 * hydrating entities costs ten times the query. Columns are aliased `<prefix><property>`, so one
 * joined row can carry several records.
 */
export class RecordReader<R> {
  private readonly entries: ReadonlyArray<readonly [string, string, Column]>;
  private readonly build: BuildRecord;

  constructor(columns: ReadonlyMap<string, Column>, prefix = '') {
    this.entries = [...columns].map(([key, spec]) => [key, `${prefix}${key}`, spec] as const);
    this.build = recordBuilder(this.entries);
  }

  /** `alias."column" as "<prefix><property>", …` */
  select(alias: string): string {
    return this.entries
      .map(([, aliased, spec]) => `${alias}."${spec.name}" as "${aliased}"`)
      .join(', ');
  }

  /** `alias."column"` of a property, as a select's own tables name it. */
  column(key: keyof R & string, alias: string): string {
    return `${alias}."${this.columnName(key)}"`;
  }

  /** The column of a property, unqualified (as an update's `set` names it). */
  columnName(key: keyof R & string): string {
    return this.entry(key)[2].name;
  }

  /** `"<prefix><property>"`: a property as the select answers it (e.g. in a union's order by). */
  output(key: keyof R & string): string {
    return `"${this.entry(key)[1]}"`;
  }

  private entry(key: string): readonly [string, string, Column] {
    const entry = this.entries.find(([name]) => name === key);
    if (!entry) {
      throw new Error(`no column for ${key}`);
    }
    return entry;
  }

  /** `null as "<prefix><property>", …`: no record, in a branch of a `union all` that has none. */
  none(): string {
    return this.entries.map(([, aliased]) => `null as "${aliased}"`).join(', ');
  }

  /** The record in a row, or null when a left join found none (its id is null). */
  read(row: Row): R | null {
    const first = this.entries[0];
    if (!first || row[first[1]] === null || row[first[1]] === undefined) {
      return null;
    }
    return this.build(row, timestampOrNull) as R;
  }
}

/** The records of all rows (rows without one are skipped). */
export function readAll<R>(reader: RecordReader<R>, rows: readonly Row[]): R[] {
  const records: R[] = [];
  for (const row of rows) {
    const record = reader.read(row);
    if (record) {
      records.push(record);
    }
  }
  return records;
}

/** How a statement is sent to a PostgreSQL server. */
export interface SelectOptions {
  /**
   * Keep the statement prepared on the connection (the default): parsed and planned once. Off for
   * statements whose best plan depends on the values, e.g. `ilike` patterns, which a generic plan
   * serves badly. Always off behind a transaction pooler (StatementPool.namedStatements).
   */
  prepared?: boolean;
}

/** Builds a row object from a row's values, in the statement's column order. */
type BuildRow = (values: readonly unknown[]) => Row;

/**
 * A row object of one shape, built as one object literal from pg's array row: measured on the
 * meeting read (36 columns), pg's own object rows took 1.6 KB per row and a hash lookup per column
 * read. A name that appears twice keeps its last value, as pg's object rows do.
 */
function rowBuilder(fields: ReadonlyArray<{ name: string }>): BuildRow {
  return literalBuilder<BuildRow>(
    ['v'],
    fields.map((field, index) => [field.name, `v[${index}]`] as const),
  );
}

/** A statement as sent to a server: its numbered text, its name, and (once run) its row builder. */
interface ServerStatement {
  text: string;
  name: string;
  /** A text answers the same columns every time: built at its first answer. */
  build?: BuildRow;
}

/** `?` placeholders, numbered for PostgreSQL, and a statement name, once per SQL text. */
const numbered = new Map<string, ServerStatement>();

function forServer(sql: string): ServerStatement {
  let statement = numbered.get(sql);
  if (!statement) {
    let index = 0;
    statement = { text: sql.replace(/\?/g, () => `$${++index}`), name: `s${numbered.size + 1}` };
    numbered.set(sql, statement);
  }
  return statement;
}

/**
 * A list of values as one PostgreSQL array literal, for `= any(?::text[])`: one statement text
 * whatever the list's length, so it stays prepared.
 */
export function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/** The rows of an answer, as objects of one shape per statement (see {@link rowBuilder}). */
function rowsOf(statement: ServerStatement, result: ArrayResult): Row[] {
  statement.build ??= rowBuilder(result.fields);
  return result.rows.map(statement.build);
}

/**
 * Runs one statement (`?` placeholders; no `?` may appear in the SQL otherwise) and answers its
 * rows. It goes straight to a `pg` connection of the service's pool (src/platform/postgres/pool.ts),
 * or the SQL transaction's when `em` was given one, as a parameterised (by default prepared)
 * statement: no query building, no values inlined into the text, no planning on every call. The
 * ORM's own `execute` inlines every value into the text (so each statement is parsed and planned
 * again); measured on the write scenario (MikroORM 6, over knex), the ORM's path was 14% of the
 * service's busy time. In the ORM's own transaction (em.transactional) the statement goes through
 * that transaction's Kysely connection, still parameterised. Counted like the ORM's own
 * statements; errors are converted as the ORM converts them (a unique violation names its
 * constraint; a lost database is typed, 503).
 */
async function runStatement(
  em: EntityManager,
  given: string,
  givenParams: readonly unknown[],
  options: SelectOptions,
  read: boolean,
): Promise<Row[]> {
  const { sql, params } = carryingDeferred(takeDeferredWrites(em), given, givenParams);
  em.config.get('onQuery')(sql, [...params]);
  const statement = forServer(sql);
  const { text, name } = statement;
  try {
    const pool = statementPoolOf(em);
    const query: Statement = { text, values: [...params] };
    if ((options.prepared ?? true) && pool.namedStatements) {
      query.name = name;
    }
    const own = transactionOf(em);
    if (own) {
      return rowsOf(statement, await own.run(query));
    }
    const orm = em.getTransactionContext<ControlledTransaction<unknown>>();
    if (orm) {
      const result = await orm.executeQuery(CompiledQuery.raw(text, query.values));
      return result.rows as Row[];
    }
    const connection = await (read && pool.connectForRead ? pool.connectForRead() : pool.connect());
    try {
      return rowsOf(statement, await connection.run(query));
    } finally {
      connection.release();
    }
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
}

const LEADING_WITH = /^with(\s+recursive)?\s/i;

/**
 * A statement carrying the writes its SQL transaction held back (connections.ts `deferWrite`):
 * each becomes a common table expression in front of its own, which PostgreSQL runs to completion
 * whether or not the statement reads it. A statement with a WITH of its own keeps it (RECURSIVE
 * included) after theirs; placeholders stay in the order of the text.
 */
function carryingDeferred(
  writes: readonly DeferredWrite[],
  sql: string,
  params: readonly unknown[],
): { sql: string; params: readonly unknown[] } {
  if (writes.length === 0) {
    return { sql, params };
  }
  const expressions = writes.map((write, index) => `"deferred_${index + 1}" as (${write.sql})`);
  const own = LEADING_WITH.exec(sql);
  return {
    sql: own
      ? `with${own[1] ?? ''} ${expressions.join(', ')}, ${sql.slice(own[0].length)}`
      : `with ${expressions.join(', ')} ${sql}`,
    params: [...writes.flatMap((write) => write.params), ...params],
  };
}

/**
 * Runs one SELECT and answers its rows (see {@link runStatement}). Outside a transaction, in a
 * query operation, it may go to a read replica (StatementPool.connectForRead).
 */
export function selectRows(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  options: SelectOptions = {},
): Promise<Row[]> {
  return runStatement(em, sql, params, options, true);
}

/**
 * Runs one write (`?` placeholders), inside the entity manager's transaction if it has one, and
 * answers its rows (a write's `returning` rows, else none); see {@link runStatement}.
 */
export function executeRows(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Row[]> {
  return runStatement(em, sql, params, {}, false);
}

/** A select by a list of ids, as two statement texts: one for a single id, one for more. */
export interface ByIds {
  one: string;
  many: string;
  /** How many times the ids are tested (each test takes them as a value of its own). */
  tests: number;
}

/**
 * Builds a {@link ByIds} from a statement with `{match}` where the id test goes (e.g.
 * `where m."id" {match}`; it may appear more than once): `= ?` for one id, `= any(?::uuid[])` for
 * more. PostgreSQL plans the array form again on every run (its generic plan is costed for an
 * array of unknown length, so it never wins against the custom one), while `= ?` switches to a
 * cached generic plan after five runs; most requests load one meeting or one user.
 *
 * Or with `{keys}` in a from list, where the ids are a relation `keys("key")` (one row of `?`,
 * or `unnest(?::uuid[])`) to read a lateral subquery for, each id by an index. PostgreSQL costs
 * `= any(array)` of a few hundred ids as that many random reads and scans the table instead (the
 * participants of a feed's 200 meetings: 18–39 ms, in parallel, against 2–5 ms by the index); a
 * lateral subquery that it cannot pull up into a plain join (one with `order by`) keeps the
 * index, and a cost that grows with the ids asked for rather than with the table.
 */
export function byIds(statement: string): ByIds {
  return {
    one: statement
      .replaceAll('{match}', '= ?')
      .replaceAll('{keys}', '(select ?::uuid as "key") keys'),
    many: statement
      .replaceAll('{match}', '= any(?::uuid[])')
      .replaceAll('{keys}', 'unnest(?::uuid[]) keys("key")'),
    tests: statement.split(/\{match\}|\{keys\}/).length - 1,
  };
}

/** Runs a {@link ByIds} select for `ids` (at least one). */
export function selectByIds(
  em: EntityManager,
  select: ByIds,
  ids: readonly string[],
): Promise<Row[]> {
  const [sql, value] = ids.length === 1 ? [select.one, ids[0]] : [select.many, arrayLiteral(ids)];
  return selectRows(em, sql, new Array<unknown>(select.tests).fill(value));
}
