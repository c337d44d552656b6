import { columnsOf, type EntityClass, tableOf } from '../../platform/sql/read-model';
import type { InsertBatch, SqlValue } from './sql';
import { iso } from './time';

/** A value as the seed plans it: a timestamp as ms since the epoch, anything else as stored. */
type PlannedValue<T> = T extends Date ? number : T;

/**
 * Properties of an entity as the seed plans them, under the entity's own keys:
 * `Planned<Meeting, 'title' | 'startTime'>` is `{ title: string; startTime: number }`.
 */
export type Planned<E, K extends keyof E> = { [P in K]: PlannedValue<E[P]> };

/** A planned record of an entity: some of its properties (fields that are none are ignored). */
export type PlannedRecord<E> = Partial<Planned<E, keyof E>>;

/**
 * One INSERT of planned records of an entity. The table and the columns come from the entity's
 * declaration (columnsOf), each value is looked up in its record by property key, and
 * timestamps go through iso().
 *
 * Which columns: those whose properties the records plan (hold a value for, null included). A
 * column the records leave out (undefined) is left out of the INSERT, so the database fills it;
 * only a column with a database default may be (a declared default, or null when nullable), and
 * leaving out any other throws. All records of one INSERT plan the same properties (checked).
 */
export function plannedInsert<E>(
  entity: EntityClass<E>,
  records: readonly PlannedRecord<E>[],
  ignoreConflicts = false,
): InsertBatch {
  const table = tableOf(entity);
  const columns = columnsOf(entity);
  const [first] = records;
  if (!first) {
    return { table, columns: [], rows: [], ignoreConflicts };
  }
  const planned = columns.map((column) => first[column.key] !== undefined);
  const required = columns.find((column, i) => !planned[i] && !column.hasDefault);
  if (required) {
    throw new Error(`${table}: no value planned for "${required.column}", which has no default`);
  }
  const rows = records.map((record) => {
    const row: SqlValue[] = [];
    columns.forEach((column, i) => {
      const value = record[column.key];
      if ((value !== undefined) !== planned[i]) {
        throw new Error(`${table}: the records of one insert plan different properties`);
      }
      if (value !== undefined) {
        row.push(column.timestamp && typeof value === 'number' ? iso(value) : (value as SqlValue));
      }
    });
    return row;
  });
  return {
    table,
    columns: columns.filter((_, i) => planned[i]).map((column) => column.column),
    rows,
    ignoreConflicts,
  };
}
