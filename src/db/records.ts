/** A row as the driver answers it: column alias → value. */
export type Row = Readonly<Record<string, unknown>>;

/** How each property of a plain record is read from a table column. */
export type ColumnMap<R> = { readonly [K in keyof R]-?: Column };

interface Column {
  name: string;
  read?: (value: unknown) => unknown;
}

export const column = (name: string): Column => ({ name });
export const timestampColumn = (name: string): Column => ({ name, read: toIsoTimestamp });

/** Timestamps of records: ISO 8601 text as read (entities, when one stands in, hold Dates). */
export type WithIsoTimestamps<T> = { [K in keyof T]: T[K] extends Date ? Date | string : T[K] };

/**
 * A timestamp as ISO 8601 UTC text with milliseconds, as the API writes it. PostgreSQL answers
 * text (the ORM turns pg's own parsing off; sessions run in UTC), '2026-11-22 04:21:03.032+00',
 * rewritten here without building a Date; the embedded database answers a Date.
 */
export function toIsoTimestamp(value: unknown): string {
  if (value instanceof Date) {
    return value.toISOString();
  }
  const text = String(value);
  if (text.length >= 22 && text.endsWith('+00') && text.charAt(10) === ' ') {
    const fraction = text.charAt(19) === '.' ? text.slice(20, text.length - 3) : '';
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${fraction}000`.slice(0, 3)}Z`;
  }
  // Another offset: JavaScript wants its minutes ('+02' → '+02:00').
  const iso = text.replace(' ', 'T');
  const sign = iso.charAt(iso.length - 3);
  return new Date(sign === '+' || sign === '-' ? `${iso}:00` : iso).toISOString();
}

/**
 * Reads plain records of one table from rows, without the ORM: hot read paths answer many rows and
 * hydrating entities costs ten times the query. Columns are aliased `<prefix><property>`, so one
 * joined row can carry several records.
 */
export class RecordReader<R> {
  private readonly entries: ReadonlyArray<readonly [string, string, Column]>;

  constructor(columns: ColumnMap<R>, prefix = '') {
    this.entries = Object.entries<Column>(columns).map(
      ([key, spec]) => [key, `${prefix}${key}`, spec] as const,
    );
  }

  /** `alias."column" as "<prefix><property>", …` */
  select(alias: string): string {
    return this.entries
      .map(([, aliased, spec]) => `${alias}."${spec.name}" as "${aliased}"`)
      .join(', ');
  }

  /** The record in a row, or null when a left join found none (its id is null). */
  read(row: Row): R | null {
    const first = this.entries[0];
    if (!first || row[first[1]] === null || row[first[1]] === undefined) {
      return null;
    }
    const record: Record<string, unknown> = {};
    for (const [key, aliased, spec] of this.entries) {
      const value = row[aliased];
      record[key] = spec.read && value !== null ? spec.read(value) : value;
    }
    return record as R;
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
