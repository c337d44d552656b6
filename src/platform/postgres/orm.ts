import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { DatabaseConfig, Pooler } from '../../config';
import type { DriverException, EntityClass, MigrationObject } from '@mikro-orm/core';
import { classifyDatabaseError } from '../shared/db-errors';
import { DatabaseUnavailableError, NotFoundError } from '../shared/errors';
import { type EmbeddedServer, openEmbeddedServer } from './embedded/embedded-server';
import type { QueryCounter } from '../observability/request-tracking';
import { sendUnnamed } from '../sql/rows';
import { checkPostgres } from './preflight';

/** What the service stores: its entities and the migrations that make their tables. */
export interface DataModel {
  entities: EntityClass<object>[];
  migrations: {
    /** Every migration, oldest first. */
    list: MigrationObject[];
    /** The directory of their sources (where `npm run migration:create` writes). */
    path: string;
  };
  /**
   * Tables the migrations make that no entity maps (read and written by SQL statements only):
   * the schema generator leaves them alone rather than proposing to drop them.
   */
  unmappedTables: string[];
}

export interface OpenOptions {
  model: DataModel;
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  counter?: QueryCounter;
  log?: (message: string) => void;
  /**
   * REQUEST_TIMEOUT_MS: the longest any wait for a connection or a statement may take, also
   * outside a request (a request's own waits end sooner, at its deadline:
   * src/platform/postgres/request-deadline.ts); migrations run without it.
   */
  requestTimeoutMs?: number;
  /** knex's own warnings, e.g. a pooled connection found broken (default: none). */
  driverLog?: (message: string) => void;
  /**
   * On the embedded database, join the server of another process serving the same directory
   * (seed, migrate) instead of refusing (a second service).
   */
  attach?: boolean;
}

/** An open database: the ORM plus whatever must be closed after it. */
export interface Database {
  orm: MikroORM;
  kind: DatabaseConfig['kind'];
  /** The server's connection URL, as the pool reaches it (through a pooler when there is one). */
  url: string;
  /**
   * A URL for connections that need a session of their own (the event listener's LISTEN,
   * migrations): DATABASE_DIRECT_URL when set, else `url`.
   */
  sessionUrl: string;
  /** The embedded server this process started or joined (its health), on the embedded database. */
  embedded: EmbeddedServer | null;
  close(): Promise<void>;
}

const toConstantCase = (name: string): string =>
  name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

function baseOptions(
  model: DataModel,
  counter: QueryCounter | undefined,
  log?: (message: string) => void,
): Options {
  return {
    logger: (message) => log?.(message),
    entities: model.entities,
    extensions: [Migrator],
    migrations: {
      migrationsList: model.migrations.list,
      path: model.migrations.path,
      pathTs: model.migrations.path,
      snapshotName: '.snapshot-meetings',
      // Only `npm run migration:create` writes the snapshot; applying migrations never does.
      snapshot: false,
      transactional: true,
      allOrNothing: true,
    },
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    schemaGenerator: { skipTables: model.unmappedTables },
    forceUtcTimezone: true,
    // One place turns "not found" into the contract's code (USER_NOT_FOUND, MEETING_NOT_FOUND, ...).
    findOneOrFailHandler: (entityName) =>
      new NotFoundError(`${toConstantCase(entityName)}_NOT_FOUND`, `${entityName} not found`),
    onQuery: counter?.record ?? ((sql) => sql),
    debug: false,
    colors: false,
    allowGlobalContext: false,
  };
}

/** MikroORM options for a PostgreSQL server (the configured one or the embedded one). */
export function buildOrmOptions(
  model: DataModel,
  url: string,
  poolSize: number,
  counter?: QueryCounter,
  log?: (message: string) => void,
  limits: Pick<OpenOptions, 'requestTimeoutMs' | 'driverLog'> & { pooler?: Pooler } = {},
): Options {
  const { requestTimeoutMs: timeoutMs, driverLog = () => undefined, pooler = 'session' } = limits;
  // A start-up parameter would set the timeout on whichever server connection a transaction
  // pooler opened for someone else, and pgbouncer refuses connections that send it: behind one,
  // requests are bounded by their deadline's cancel and the rest by the server's own setting.
  const statementTimeout = timeoutMs && pooler === 'session' && { statement_timeout: timeoutMs };
  return {
    ...baseOptions(model, counter, log),
    clientUrl: url,
    pool: {
      min: 0,
      max: poolSize,
      // knex waits 60 s by default: far beyond the request timeout.
      ...(timeoutMs && { acquireTimeoutMillis: timeoutMs, createTimeoutMillis: timeoutMs }),
    },
    driverOptions: {
      // knex writes its warnings to the console, as plain text, unless given a log.
      log: { warn: driverLog, error: driverLog, deprecate: driverLog, debug: driverLog },
      // Sent at connection start-up; a statement blocked by a lock is cancelled too.
      ...(timeoutMs && {
        connection: { ...statementTimeout, connectionTimeoutMillis: timeoutMs },
      }),
    },
  };
}

/**
 * Opens the ORM with every driver and pool error classified where it enters: statements (the
 * platform's exception converter, which the ORM and selectRows both call), statements sent
 * straight through the connection (query builders' `execute`), and the transaction calls that
 * bypass the converter (begin acquires a connection; commit and rollback may find it lost).
 */
async function initOrm(options: Options): Promise<MikroORM> {
  const orm = await MikroORM.init(options);
  const converter = orm.em.getPlatform().getExceptionConverter();
  const convert = converter.convertException.bind(converter);
  converter.convertException = (exception) =>
    exception instanceof DatabaseUnavailableError
      ? exception
      : (classifyDatabaseError(convert(exception)) as DriverException);
  const connection = orm.em.getConnection();
  for (const method of ['execute', 'begin', 'commit', 'rollback'] as const) {
    const call = connection[method].bind(connection) as (...args: unknown[]) => Promise<unknown>;
    Object.assign(connection, {
      [method]: (...args: unknown[]) =>
        call(...args).catch((error: unknown) => {
          throw classifyDatabaseError(error);
        }),
    });
  }
  return orm;
}

/** The server to connect to: the configured one, or the embedded server (started or joined). */
export async function databaseServer(
  config: DatabaseConfig,
  options: Pick<OpenOptions, 'log' | 'attach'>,
): Promise<{ url: string; server: EmbeddedServer | null }> {
  if (config.kind === 'postgres') {
    const log = options.log ?? console.log;
    // The direct URL first: a database missing there is created on a session of its own, not
    // through the pooler.
    if (config.directUrl) {
      await checkPostgres(config.directUrl, 'DATABASE_DIRECT_URL', log);
    }
    await checkPostgres(config.url, config.urlVariable ?? 'DATABASE_URL', log);
    return { url: config.url, server: null };
  }
  const server = await openEmbeddedServer(config.dataDir, {
    attach: options.attach ?? false,
    log: options.log,
    restartAttempts: config.restartAttempts,
  });
  return { url: server.url, server };
}

/**
 * The database as work that needs a session of its own reaches it (migrations): straight at
 * DATABASE_DIRECT_URL when one is set, else as configured.
 */
export function sessionTarget(config: DatabaseConfig): DatabaseConfig {
  return config.kind === 'postgres' && config.directUrl
    ? { kind: 'postgres', url: config.directUrl, poolSize: 1, urlVariable: 'DATABASE_DIRECT_URL' }
    : config;
}

/**
 * A second ORM on an open database, with a small pool of its own, for work outside requests
 * (webhook jobs): its statements are not counted with the requests' (QueryCounter), take none of
 * their connections, and behind a transaction pooler go unnamed as theirs do.
 */
export async function openBackgroundOrm(
  database: Pick<Database, 'url'>,
  model: DataModel,
  options: Pick<OpenOptions, 'requestTimeoutMs' | 'driverLog'> & {
    poolSize: number;
    pooler?: Pooler;
  },
): Promise<MikroORM> {
  const { poolSize, pooler, ...limits } = options;
  const orm = await initOrm(
    buildOrmOptions(model, database.url, poolSize, undefined, undefined, { ...limits, pooler }),
  );
  if (pooler === 'transaction') {
    sendUnnamed(orm.em.getConnection().getKnex());
  }
  return orm;
}

/** Opens the configured database and, unless told otherwise, brings its schema up to date. */
export async function openDatabase(
  config: DatabaseConfig,
  options: OpenOptions,
): Promise<Database> {
  const { model, migrate = true, counter, log, requestTimeoutMs, driverLog } = options;
  const { url, server } = await databaseServer(config, options);
  const pooler = config.kind === 'postgres' ? config.pooler : undefined;
  const sessionUrl = (config.kind === 'postgres' && config.directUrl) || url;
  let orm: MikroORM;
  try {
    if (migrate) {
      // Migrations may rightly take longer than a request's statement: run them without its limits,
      // in a session of their own.
      const migrator = await initOrm(
        buildOrmOptions(model, sessionUrl, 1, undefined, log, { driverLog }),
      );
      try {
        await migrator.getMigrator().up();
      } finally {
        await migrator.close(true);
      }
    }
    orm = await initOrm(
      buildOrmOptions(model, url, config.poolSize, counter, log, {
        requestTimeoutMs,
        driverLog,
        pooler,
      }),
    );
    if (pooler === 'transaction') {
      sendUnnamed(orm.em.getConnection().getKnex());
    }
  } catch (error) {
    await server?.stop();
    throw error;
  }
  const close = async (): Promise<void> => {
    await orm.close(true);
    await server?.stop();
  };
  return { orm, kind: config.kind, url, sessionUrl, embedded: server, close };
}
