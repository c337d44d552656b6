import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite' with { 'resolution-mode': 'import' };
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { Config, DatabaseConfig } from '../config';
import { withUnavailableStatus } from '../shared/db-errors';
import { NotFoundError } from '../shared/errors';
import { entities } from './entities';
import { migrationsList } from './migrations';
import { embeddedModules } from './pglite-modules';
import type { QueryCounter } from './query-stats';

/** An open database: the ORM plus whatever must be closed after it. */
export interface Database {
  orm: MikroORM;
  kind: DatabaseConfig['kind'];
  close(): Promise<void>;
}

const toConstantCase = (name: string): string =>
  name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

function baseOptions(counter: QueryCounter | undefined, log?: (message: string) => void): Options {
  return {
    logger: (message) => log?.(message),
    entities,
    extensions: [Migrator],
    migrations: {
      migrationsList,
      path: resolve(__dirname, 'migrations'),
      pathTs: resolve(__dirname, '../../../src/db/migrations'),
      snapshotName: '.snapshot-meetings',
      // Only `npm run migration:create` writes the snapshot; applying migrations never does.
      snapshot: false,
      transactional: true,
      allOrNothing: true,
    },
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    forceUtcTimezone: true,
    // One place turns "not found" into the contract's code (USER_NOT_FOUND, MEETING_NOT_FOUND, ...).
    findOneOrFailHandler: (entityName) =>
      new NotFoundError(`${toConstantCase(entityName)}_NOT_FOUND`),
    onQuery: (sql) => {
      counter?.record();
      return sql;
    },
    debug: false,
    colors: false,
    allowGlobalContext: false,
  };
}

/** How long a request may wait for a pooled connection, and for one statement (server only). */
export type DatabaseTimeouts = Config['databaseTimeouts'];

/** MikroORM options for the configured database, and the embedded instance it runs on, if any. */
export function buildOrmOptions(
  config: DatabaseConfig,
  counter?: QueryCounter,
  log?: (message: string) => void,
  timeouts?: DatabaseTimeouts,
): { options: Options; pglite: PGlite | null } {
  if (config.kind === 'postgres') {
    return {
      options: {
        ...baseOptions(counter, log),
        clientUrl: config.url,
        pool: {
          min: 0,
          max: config.poolSize,
          // knex waits 60 s by default: far beyond the request timeout.
          ...(timeouts && {
            acquireTimeoutMillis: timeouts.acquireMs,
            createTimeoutMillis: timeouts.acquireMs,
          }),
        },
        // Sent at connection start-up; a statement blocked by a lock is cancelled too.
        ...(timeouts && {
          driverOptions: {
            connection: {
              statement_timeout: timeouts.statementMs,
              connectionTimeoutMillis: timeouts.acquireMs,
            },
          },
        }),
      },
      pglite: null,
    };
  }
  if (config.dataDir) {
    mkdirSync(config.dataDir, { recursive: true });
  }
  const { PGlite, types, PGliteDriver, pg_trgm } = embeddedModules();
  const pglite = new PGlite({
    ...(config.dataDir ? { dataDir: resolve(config.dataDir) } : {}),
    extensions: { pg_trgm },
    // Dates stay 'YYYY-MM-DD' text, as the pg driver returns them on a PostgreSQL server.
    parsers: { [types.DATE]: (value: string) => value },
  });
  const options = {
    ...baseOptions(counter, log),
    driver: PGliteDriver,
    dbName: 'pglite',
    driverOptions: { connection: { pglite: () => pglite } },
  } as unknown as Options;
  return { options, pglite };
}

/** Opens the configured database and, unless told otherwise, brings its schema up to date. */
export async function openDatabase(
  config: DatabaseConfig,
  options: {
    migrate?: boolean;
    counter?: QueryCounter;
    log?: (message: string) => void;
    timeouts?: DatabaseTimeouts;
  } = {},
): Promise<Database> {
  const { migrate = true, counter, log, timeouts } = options;
  if (migrate && timeouts && config.kind === 'postgres') {
    // Migrations may rightly take longer than a request's statement: run them without its limits.
    await (await openDatabase(config, { migrate, log })).close();
    return openDatabase(config, { migrate: false, counter, log, timeouts });
  }
  const built = buildOrmOptions(config, counter, log, timeouts);
  const orm = await MikroORM.init(built.options);
  // Every query error passes here: a lost database becomes a 503 on GraphQL too, not a 500.
  const driver = orm.em.getDriver();
  const convertException = driver.convertException.bind(driver);
  driver.convertException = (exception) => withUnavailableStatus(convertException(exception));
  const close = async (): Promise<void> => {
    await orm.close(true);
    await built.pglite?.close();
  };
  try {
    if (migrate) {
      await orm.getMigrator().up();
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { orm, kind: config.kind, close };
}
