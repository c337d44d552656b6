import type { DataModel } from './platform/postgres/orm';
import { MIGRATIONS_PATH, migrationsList } from './db/migrations';
import { parts } from './context';

/** What the service stores: the modules' entities and the migrations that make their tables. */
export const dataModel: DataModel = {
  entities: parts.flatMap((part) => ('entities' in part ? [...part.entities] : [])),
  migrations: { list: migrationsList, path: MIGRATIONS_PATH },
  unmappedTables: parts.flatMap((part) => ('tables' in part ? [...part.tables] : [])),
};
