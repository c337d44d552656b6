import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import { PostgresDialect } from 'kysely';
import type { DatabaseConfig, Pooler } from './database-config';
import type { DriverException, EntityClass, MigrationObject } from '@mikro-orm/core';
import { classifyDatabaseError } from '../shared/db-errors';
import { DatabaseUnavailableError, NotFoundError } from '../shared/errors';
import { type EmbeddedServer, openEmbeddedServer } from './embedded/embedded-server';
import type { QueryCounter } from '../observability/request-tracking';
import { useStatementPool } from '../sql/connections';
import { type PoolOptions, ServicePool } from './pool';
import { checkPostgres } from './preflight';
import { type ReadRouting, readRouting } from './replicas/read-routing';

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
  /** The driver's warnings, e.g. a pooled connection lost while idle (default: none). */
  driverLog?: (message: string) => void;
  /**
   * On the embedded database, join the server of another process serving the same directory
   * (seed, migrate) instead of refusing (a second service).
   */
  attach?: boolean;
  /**
   * Where callers' last write positions are kept for read replicas (REDIS_URL); absent or null:
   * a table of the primary.
   */
  redisUrl?: string | null;
}

/** An open database: the ORM plus whatever must be closed after it. */
export interface Database {
  orm: MikroORM;
  /** The pool every connection of `orm` (the ORM's and raw statements') comes from. */
  pool: ServicePool;
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
  /** How reads reach the read replicas (DATABASE_READ_URLS); null: every read is the primary's. */
  reads: ReadRouting | null;
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
    // Legacy decorators with their design-type metadata (emitted by SWC and ts-jest).
    metadataProvider: ReflectMetadataProvider,
    schemaGenerator: {
      skipTables: model.unmappedTables,
      // The migrations' own triggers and functions (search grams, session ends, meeting spans)
      // are declared by no entity: MikroORM 7 would otherwise propose to drop them.
      ignoreTriggers: true,
      ignoreRoutines: true,
      // MikroORM 6 derived `on update cascade` from the relations' default cascade, and the
      // applied migrations have it; MikroORM 7 no longer derives it.
      defaultUpdateRule: 'cascade',
    },
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

/**
 * MikroORM options for a PostgreSQL server (the configured one or the embedded one). With a
 * `pool`, the ORM runs its statements on it (Kysely's PostgresDialect over the service's own
 * pg pool); without one (creating a migration) MikroORM opens a pool of its own on `url`.
 */
export function buildOrmOptions(
  model: DataModel,
  url: string,
  pool?: ServicePool,
  counter?: QueryCounter,
  log?: (message: string) => void,
): Options {
  return {
    ...baseOptions(model, counter, log),
    clientUrl: url,
    ...(pool && { driverOptions: new PostgresDialect({ pool }) }),
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
  // Connections open lazily in MikroORM 7: open one now, so that start-up fails on a database
  // that cannot be reached, as it did.
  await orm.connect();
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
 * An ORM on a pool of its own (see {@link ServicePool}); raw statements of its entity managers
 * run on the same pool. Closing the ORM ends the pool.
 */
async function openOrm(
  model: DataModel,
  pool: PoolOptions,
  counter?: QueryCounter,
  log?: (message: string) => void,
): Promise<{ orm: MikroORM; pool: ServicePool }> {
  const servicePool = new ServicePool(pool);
  try {
    const orm = await initOrm(buildOrmOptions(model, pool.url, servicePool, counter, log));
    useStatementPool(orm.em, servicePool);
    return { orm, pool: servicePool };
  } catch (error) {
    await servicePool.end();
    throw error;
  }
}

/** What background work's sessions are named, so that the server's activity tells them apart. */
export const BACKGROUND_APPLICATION_PREFIX = 'meetings-background:';

/** The application_name of the sessions of background `work` (e.g. `mail`). */
export const backgroundApplicationName = (work: string): string =>
  `${BACKGROUND_APPLICATION_PREFIX}${work}`;

/**
 * A second ORM on an open database, with a small pool of its own, for work outside requests
 * (webhook jobs): its statements are not counted with the requests' (QueryCounter), take none of
 * their connections, and behind a transaction pooler go unnamed as theirs do.
 */
export async function openBackgroundOrm(
  database: Pick<Database, 'url'>,
  model: DataModel,
  options: Pick<OpenOptions, 'requestTimeoutMs' | 'driverLog'> & {
    /** What the connections are for (their application_name: see backgroundApplicationName). */
    work: string;
    poolSize: number;
    pooler?: Pooler;
  },
): Promise<MikroORM> {
  const { orm } = await openOrm(model, {
    url: database.url,
    applicationName: backgroundApplicationName(options.work),
    max: options.poolSize,
    timeoutMs: options.requestTimeoutMs,
    pooler: options.pooler,
    log: options.driverLog,
  });
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
  let opened: { orm: MikroORM; pool: ServicePool };
  try {
    if (migrate) {
      // Migrations may rightly take longer than a request's statement: run them without its limits,
      // in a session of their own.
      const migrator = await openOrm(
        model,
        { url: sessionUrl, max: 1, log: driverLog },
        undefined,
        log,
      );
      try {
        await migrator.orm.migrator.up();
      } finally {
        await migrator.orm.close(true);
      }
    }
    opened = await openOrm(
      model,
      { url, max: config.poolSize, timeoutMs: requestTimeoutMs, pooler, log: driverLog },
      counter,
      log,
    );
  } catch (error) {
    await server?.stop();
    throw error;
  }
  const { orm, pool } = opened;
  const replicas = config.kind === 'postgres' ? config.replicas : undefined;
  const reads = replicas
    ? await readRouting(pool, replicas, {
        poolSize: config.poolSize,
        redisUrl: options.redisUrl ?? null,
        ...(requestTimeoutMs !== undefined && { timeoutMs: requestTimeoutMs }),
        ...(driverLog && { log: driverLog }),
      })
    : null;
  if (reads) {
    useStatementPool(orm.em, reads);
  }
  const close = async (): Promise<void> => {
    await reads?.close();
    await orm.close(true);
    await pool.end();
    await server?.stop();
  };
  return { orm, pool, kind: config.kind, url, sessionUrl, embedded: server, reads, close };
}
