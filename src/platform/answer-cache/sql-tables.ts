/**
 * What a statement reads and writes, by table, from its text: the answer cache's tags. Tables of
 * the public schema only (a name qualified by another schema, such as the job queue's, is left
 * out); a function called in FROM (`unnest(…)`) is not a table. A name that is not a table (a
 * common table expression's) only adds a tag no change ever drops, so it costs nothing.
 */

// A name, quoted or not, optionally qualified by its schema; not followed by `(` (a function).
const NAME = String.raw`(?:"?([A-Za-z_]\w*)\b"?\s*\.\s*)?"?([A-Za-z_]\w*)\b"?(?!\s*\()`;
const READS = new RegExp(String.raw`\b(?:from|join)\s+${NAME}`, 'gi');
const WRITES = new RegExp(String.raw`\b(?:insert\s+into|update|delete\s+from)\s+${NAME}`, 'gi');

/**
 * Functions whose value is the time of the statement: a statement calling one answers
 * differently as time passes, with no write in between.
 */
const CLOCK =
  /\b(?:now\s*\(|current_(?:timestamp|date|time)\b|localtime(?:stamp)?\b|(?:clock|statement|transaction)_timestamp\s*\()/i;

const SCHEMA = 'public';

function tablesOf(pattern: RegExp, sql: string, into: Set<string>): void {
  for (const match of sql.matchAll(pattern)) {
    const [, schema, table] = match;
    if (table && (schema === undefined || schema === SCHEMA)) {
      into.add(table);
    }
  }
}

/** Adds the tables `sql` reads (FROM and JOIN, writes included) to `into`. */
export function addTablesRead(sql: string, into: Set<string>): void {
  tablesOf(READS, sql, into);
  tablesOf(WRITES, sql, into);
}

/** Adds the tables `sql` writes (INSERT, UPDATE, DELETE) to `into`. */
export function addTablesWritten(sql: string, into: Set<string>): void {
  tablesOf(WRITES, sql, into);
}

/** Whether `sql` reads the clock. */
export const readsClock = (sql: string): boolean => CLOCK.test(sql);
