import { loadConfig } from '../app-config';
import { dataModel } from '../data-model';
import { type Database, openDatabase, sessionTarget } from '../platform/postgres/orm';

/**
 * The configured database as a command beside the service opens it, without migrating: on the
 * embedded database, a running service's server is joined, not refused; behind a pooler, the
 * command goes straight to DATABASE_DIRECT_URL.
 */
export function openCommandDatabase(): Promise<Database> {
  const config = loadConfig();
  return openDatabase(sessionTarget(config.database), {
    model: dataModel,
    migrate: false,
    attach: true,
  });
}
