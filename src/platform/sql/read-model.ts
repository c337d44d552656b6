import {
  type EntityMetadata,
  type EntityProperty,
  type HiddenProps,
  MetadataStorage,
  ReferenceKind,
  UnderscoreNamingStrategy,
} from '@mikro-orm/core';
import { arrayLiteral, type Column, RecordReader } from './rows';

/** A class the ORM maps; only its name and prototype chain are read here. */
export type EntityClass<E> = abstract new (...args: never[]) => E;

type HiddenKeys<E> = E extends { [HiddenProps]?: infer K } ? K : never;

/** The properties of an entity a client may read: its data, not its methods nor hidden columns. */
type ReadKeys<E> = Exclude<
  {
    [K in keyof E]: K extends string
      ? E[K] extends (...args: never[]) => unknown
        ? never
        : K
      : never;
  }[keyof E],
  HiddenKeys<E>
>;

/**
 * The read model of an entity: what queries and mutations answer for it, as a plain object of its
 * readable columns (relations appear as their foreign keys, mapped with `mapToPk`). Timestamps are
 * ISO 8601 text, the form the API writes, so hot reads never build Dates.
 */
export type ReadModel<E> = {
  [K in ReadKeys<E>]: E[K] extends Date ? string : E[K] extends Date | null ? string | null : E[K];
};

// The naming the ORM itself uses for columns not named explicitly (src/platform/postgres/orm.ts sets no other).
const naming = new UnderscoreNamingStrategy();

function decoratorMetadata(className: string): EntityMetadata | undefined {
  return Object.values(MetadataStorage.getMetadata()).find((meta) => meta.className === className);
}

function columnName(property: EntityProperty): string {
  // `fieldName` is how a decorator names a column; discovery turns it into `fieldNames`.
  const declared = property.fieldNames?.[0] ?? (property as { fieldName?: string }).fieldName;
  if (declared) {
    return declared;
  }
  return property.kind === ReferenceKind.MANY_TO_ONE
    ? naming.joinKeyColumnName(property.name)
    : naming.propertyToColumnName(property.name);
}

const isTimestamp = (property: EntityProperty): boolean =>
  property.type === 'datetime' || property.type === 'Date';

/** What a client may read of a property: scalars and foreign keys, never hidden or lazy columns. */
const readable = (property: EntityProperty): boolean =>
  !property.hidden &&
  !property.lazy &&
  property.persist !== false &&
  (property.kind === ReferenceKind.SCALAR ||
    (property.kind === ReferenceKind.MANY_TO_ONE && property.mapToPk === true));

/** The column of a property the read model leaves out (a hidden one, such as a password hash). */
export function hiddenColumnOf<E>(entity: EntityClass<E>, key: HiddenKeys<E> & string): string {
  const property = decoratorMetadata(entity.name)?.properties[key] as EntityProperty | undefined;
  if (!property) {
    throw new Error(`${entity.name} has no property ${key}`);
  }
  return columnName(property);
}

const modelColumns = new Map<EntityClass<unknown>, ReadonlyMap<string, Column>>();

/**
 * The properties the ORM's decorators declare on an entity class and its ancestors, the
 * ancestors' first (a property declared again replaces its ancestor's, in its place).
 */
function declaredProperties(entity: EntityClass<unknown>): EntityProperty[] {
  const chain: Array<{ name: string }> = [];
  for (let cls: unknown = entity; typeof cls === 'function' && cls !== Function.prototype; ) {
    chain.unshift(cls);
    cls = Object.getPrototypeOf(cls);
  }
  const found = new Map<string, EntityProperty>();
  for (const cls of chain) {
    for (const property of Object.values(decoratorMetadata(cls.name)?.properties ?? {})) {
      found.set(property.name, property as EntityProperty);
    }
  }
  return [...found.values()];
}

/**
 * The readable columns of an entity class (its ancestors' first), read once from the ORM's
 * decorator metadata: the entity's declaration is the one source of every select list and record.
 */
export function readModelColumns(entity: EntityClass<unknown>): ReadonlyMap<string, Column> {
  let columns = modelColumns.get(entity);
  if (columns) {
    return columns;
  }
  const found = new Map<string, Column>();
  for (const property of declaredProperties(entity)) {
    if (readable(property)) {
      found.set(property.name, {
        name: columnName(property),
        ...(isTimestamp(property) ? { timestamp: true } : {}),
      });
    }
  }
  if (found.size === 0) {
    throw new Error(`${entity.name} is not an entity with readable columns`);
  }
  columns = found;
  modelColumns.set(entity, columns);
  return columns;
}

const tables = new Map<EntityClass<unknown>, string>();

/** The table of an entity class, as its `@Entity` declares it (or the ORM's naming of it). */
export function tableOf(entity: EntityClass<unknown>): string {
  let table = tables.get(entity);
  if (table === undefined) {
    table = decoratorMetadata(entity.name)?.tableName ?? naming.classToTableName(entity.name);
    tables.set(entity, table);
  }
  return table;
}

/** Reads an entity's read model from rows whose columns are aliased `<prefix><property>`. */
export function readerOf<E>(entity: EntityClass<E>, prefix = ''): RecordReader<ReadModel<E>> {
  return new RecordReader<ReadModel<E>>(readModelColumns(entity), prefix);
}

/** The read model of an entity a write has just loaded or created: the same shape reads answer. */
export function toReadModel<E extends object>(entity: E): ReadModel<E> {
  const record: Record<string, unknown> = {};
  for (const [key, column] of readModelColumns(entity.constructor as EntityClass<unknown>)) {
    const value = (entity as Record<string, unknown>)[key] ?? null;
    record[key] = column.timestamp && value instanceof Date ? value.toISOString() : value;
  }
  return record as ReadModel<E>;
}

/** One statement and its values (`?` placeholders). */
export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Inserts records of an entity into its table, in one statement: every readable column, named as
 * the entity declares it. Timestamps are ISO text, as records hold them.
 */
export function insertOf<E>(entity: EntityClass<E>, ...records: ReadModel<E>[]): Statement {
  const columns = [...readModelColumns(entity)];
  const row = `(${columns.map(() => '?').join(', ')})`;
  return {
    sql:
      `insert into "${tableOf(entity)}" (${columns.map(([, column]) => `"${column.name}"`).join(', ')}) ` +
      `values ${records.map(() => row).join(', ')}`,
    params: records.flatMap((record) =>
      columns.map(([key]) => (record as Record<string, unknown>)[key] ?? null),
    ),
  };
}

/** The records with these ids (at least one): `"id" = ?`, or `= any(?::uuid[])` for several. */
export function idIn(ids: readonly string[]): Statement {
  return ids.length > 1
    ? { sql: '"id" = any(?::uuid[])', params: [arrayLiteral(ids)] }
    : { sql: '"id" = ?', params: [ids[0]] };
}

/** Sets the given properties of the records of an entity's table that `where` selects. */
export function updateOf<E>(
  entity: EntityClass<E>,
  changes: Partial<ReadModel<E>>,
  where: Statement,
): Statement {
  const columns = readModelColumns(entity);
  const set: string[] = [];
  const params: unknown[] = [];
  for (const [key, value] of Object.entries(changes)) {
    const column = columns.get(key);
    if (!column) {
      throw new Error(`${entity.name} has no readable column for ${key}`);
    }
    set.push(`"${column.name}" = ?`);
    params.push(value ?? null);
  }
  return {
    sql: `update "${tableOf(entity)}" set ${set.join(', ')} where ${where.sql}`,
    params: [...params, ...where.params],
  };
}

/** A column an entity stores, as an INSERT names it. */
export interface EntityColumn<E> {
  /** The property that holds it. */
  key: Extract<keyof E, string>;
  /** The column's name, as the entity declares it (or the ORM's naming of the property). */
  column: string;
  /** Whether it holds a timestamp. */
  timestamp: boolean;
  /** Whether the database fills it when an INSERT leaves it out: a declared default, or null. */
  hasDefault: boolean;
}

/** Stored as a column: what a client may read, and hidden or lazy columns too (reads skip them). */
const persisted = (property: EntityProperty): boolean =>
  readable({ ...property, hidden: false, lazy: false });

/** A column of any entity: its key is a property name. */
type StoredColumn = EntityColumn<Record<string, unknown>>;

const storedColumns = new Map<EntityClass<unknown>, readonly StoredColumn[]>();

/**
 * The columns an entity class stores (its ancestors' first), hidden ones included, read once from
 * the ORM's decorator metadata like the read model: e.g. `columnsOf(Meeting)` gives
 * `{ key: 'appointedBy', column: 'appointed_by_id', ... }` among others.
 */
export function columnsOf<E>(entity: EntityClass<E>): readonly EntityColumn<E>[] {
  let columns = storedColumns.get(entity);
  if (!columns) {
    columns = declaredProperties(entity)
      .filter(persisted)
      .map((property) => ({
        key: property.name,
        column: columnName(property),
        timestamp: isTimestamp(property),
        hasDefault:
          property.default !== undefined ||
          property.defaultRaw !== undefined ||
          property.nullable === true,
      }));
    storedColumns.set(entity, columns);
  }
  return columns as readonly EntityColumn<E>[];
}
