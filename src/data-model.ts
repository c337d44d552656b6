import { entities } from './modules';
import type { DataModel } from './platform/postgres/orm';
import { MIGRATIONS_PATH, migrationsList } from './db/migrations';

/** What the service stores: the modules' entities and the migrations that make their tables. */
export const dataModel: DataModel = {
  entities,
  migrations: { list: migrationsList, path: MIGRATIONS_PATH },
  // The change log (src/platform/live/change-log.ts), the idempotency keys
  // (src/platform/sql/idempotency-keys.ts) and the webhook dispatcher's cursor in the log
  // (src/modules/webhook/webhook-delivery.store.ts).
  unmappedTables: ['change_log', 'change_log_horizon', 'idempotency_keys', 'webhook_dispatch'],
};
