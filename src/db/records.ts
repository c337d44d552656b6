/** A row as the driver answers it: column alias → value. */
export type Row = Readonly<Record<string, unknown>>;

/** Where a property of a record is read from: its column, and whether it holds a timestamp. */
export interface Column {
  name: string;
  timestamp?: boolean;
}

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

  constructor(columns: ReadonlyMap<string, Column>, prefix = '') {
    this.entries = [...columns].map(([key, spec]) => [key, `${prefix}${key}`, spec] as const);
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
      record[key] = spec.timestamp && value !== null ? toIsoTimestamp(value) : value;
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
