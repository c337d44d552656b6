import { createPostgreSqlTypeParsers } from '@mikro-orm/postgresql';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { Pool, type PoolClient, type Submittable, TypeOverrides, types } from 'pg';
import type { PoolState } from '../observability/metrics';
import type {
  ArrayResult,
  Statement,
  StatementConnection,
  StatementPool,
} from '../sql/connections';
import { repeatedArrays } from './repeated-arrays';
import { acquireByDeadline, isDeadlineReached, statementByDeadline } from './request-deadline';

/** How the service's pool of PostgreSQL connections is made. */
export interface PoolOptions {
  url: string;
  max: number;
  /**
   * REQUEST_TIMEOUT_MS: the longest a wait for a connection (queued, or being opened) may take,
   * and, sent at connection start-up, the session's statement_timeout (a statement blocked by a
   * lock is cancelled too). Unset: no limit (migrations).
   */
  timeoutMs?: number;
  /**
   * Behind a transaction pooler (DATABASE_POOLER=transaction): no statement_timeout start-up
   * parameter (it would set the timeout on whichever server connection the pooler opened for
   * someone else, and pgbouncer refuses connections that send it) and no named statements.
   */
  pooler?: 'session' | 'transaction';
  /** The driver's warnings, e.g. a pooled connection lost while idle (default: none). */
  log?: (message: string) => void;
  /** The sessions' application_name, as pg_stat_activity shows it (default: none). */
  applicationName?: string;
}

/** What the pool's watchers hear (src/platform/postgres/database-guard.ts). */
export interface PoolWatch {
  /** A wait for the database (a connection or a statement) that a request's deadline ended. */
  deadlineReached(): void;
  /** A connection could not be opened. */
  connectFailed(error: unknown): void;
  /** A connection was opened. */
  connected(): void;
}

const unwatched: PoolWatch = {
  deadlineReached: () => undefined,
  connectFailed: () => undefined,
  connected: () => undefined,
};

/** A statement that opens or ends a transaction (Kysely's, for the ORM's transactions). */
const TRANSACTION_CONTROL = /^\s*(begin|start transaction|commit|rollback)\b/i;

/** How long a broken connection stays open for a statement it still runs (see release). */
const BROKEN_GRACE_MS = 5_000;

const settled = (): void => undefined;

/** Kysely types a cursor by what it reads of it; pg runs it as what it is, a Submittable. */
function isSubmittable<R>(cursor: PostgresCursor<R>): cursor is PostgresCursor<R> & Submittable {
  return 'submit' in cursor && typeof cursor.submit === 'function';
}

/**
 * pg-pool's answer to a wait in its queue that outlived connectionTimeoutMillis: the pool was
 * busy, not the database unreachable.
 */
const QUEUE_TIMEOUT = 'timeout exceeded when trying to connect';

/** The array types whose values repeat from row to row (integer[] and text[] columns). */
const ARRAY_OIDS = { int4: 1007, text: 1009 } as const;

/**
 * pg's type parsers as the ORM expects them: dates, timestamps and intervals as PostgreSQL's
 * text (rows.ts rewrites timestamps without building a Date; sessions run in UTC).
 */
function typeParsers(): TypeOverrides {
  const overrides = new TypeOverrides();
  // pg's parser of an array type (its typings know the builtins only; int4[] answers numbers).
  const parseOid = types.getTypeParser as (oid: number) => (text: string) => string[];
  const parsers = createPostgreSqlTypeParsers(parseOid(ARRAY_OIDS.text));
  for (const [oid, parse] of Object.entries(parsers)) {
    overrides.setTypeParser(Number(oid), parse);
  }
  for (const oid of [ARRAY_OIDS.int4, ARRAY_OIDS.text]) {
    overrides.setTypeParser(oid, repeatedArrays(parseOid(oid)));
  }
  return overrides;
}

/**
 * One connection lent out by {@link ServicePool}: what Kysely (under the ORM) and the service's
 * raw statements (src/platform/sql/rows.ts) run statements on, each bounded by the current
 * request's deadline. One per pg client, so Kysely keeps one connection object per client.
 */
export class PooledConnection implements PostgresPoolClient, StatementConnection {
  /**
   * Set when a deadline left a statement running, or a transaction's BEGIN, COMMIT or ROLLBACK
   * failed: the client is ended on release, not pooled again.
   */
  private broken = false;
  /** Whether the connection is lent out (released once per loan). */
  private lent = false;
  /** Settles when the last statement sent has (the client runs them in order). */
  private idle: Promise<unknown> = Promise.resolve();

  constructor(
    /** The pg client (a connection of the pg pool). */
    readonly client: PoolClient,
    private readonly watch: () => PoolWatch,
  ) {}

  /** The server process (Kysely reads it to cancel a query it aborts). */
  get processID(): number | undefined {
    return (this.client as PoolClient & { processID?: number }).processID;
  }

  private bounded<T>(text: string, run: () => Promise<T>): Promise<T> {
    const send = (): Promise<T> => {
      const running = run();
      this.idle = running.then(settled, settled);
      return running;
    };
    return statementByDeadline(
      this.client,
      text,
      send,
      () => this.watch().deadlineReached(),
      () => {
        this.broken = true;
      },
    );
  }

  /** Kysely's statements (the ORM's), and its cursors (not bounded: they are read in parts). */
  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    statement: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof statement !== 'string') {
      if (!isSubmittable(statement)) {
        throw new TypeError('a cursor that pg cannot submit (not a pg-cursor)');
      }
      return this.client.query(statement);
    }
    const running = this.bounded(
      statement,
      // Kept escape: pg types a result's command as any string and its rowCount as nullable;
      // Kysely's type lists five commands and a number, yet gets a BEGIN's result too (it reads
      // rowCount only for the commands it lists). No real type says both.
      () =>
        this.client.query(statement, parameters ? [...parameters] : []) as unknown as Promise<
          PostgresQueryResult<R>
        >,
    );
    if (!TRANSACTION_CONTROL.test(statement)) {
      return running;
    }
    // Kysely 0.29.6 (MikroORM 7.2's) never releases a transaction's connection whose BEGIN failed,
    // nor one whose COMMIT and then ROLLBACK failed (a lost connection, a deadline): the pool would
    // lose it for good (0.29.9 releases both). The connection is ended here at once, so nothing
    // of a transaction in an unknown state is pooled again, and whatever Kysely still sends on it
    // fails; a Kysely that releases it too finds it released already.
    return running.catch((error: unknown) => {
      this.broken = true;
      this.release();
      throw error;
    });
  }

  /** The service's raw statements: rows as arrays (src/platform/sql/rows.ts). */
  run(statement: Statement): Promise<ArrayResult> {
    return this.bounded(statement.text, () =>
      this.client.query<unknown[]>({ ...statement, rowMode: 'array' }),
    );
  }

  /** Marks the connection lent out (by the pool, as it hands it over). */
  lend(): this {
    this.lent = true;
    return this;
  }

  release(): void {
    if (!this.lent) {
      return;
    }
    this.lent = false;
    if (this.broken) {
      // pg-pool ends a client released with an error instead of pooling it again. Not before its
      // last statement has ended (a cancelled one is answered once the cancel lands; 5 s at
      // most): pgbouncer drops the cancel of a client that has gone.
      const client = this.client;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise((resolve) => {
        timer = setTimeout(resolve, BROKEN_GRACE_MS);
      });
      void Promise.race([this.idle, grace]).then(() => {
        clearTimeout(timer);
        client.release(new Error('connection left in an unknown state'));
      });
      return;
    }
    this.client.release();
  }
}

/**
 * The service's pool of PostgreSQL connections: a `pg.Pool` it owns, handed to the ORM as
 * Kysely's pool (PostgresDialect's `pool`) and used by raw statements directly. Every connection,
 * the ORM's and the raw statements', is acquired here, and waits for one no longer than the
 * current request's deadline.
 */
export class ServicePool implements PostgresPool, StatementPool {
  readonly pg: Pool;
  readonly max: number;
  readonly namedStatements: boolean;
  private watch: PoolWatch = unwatched;
  private waiting = 0;
  private ended = false;
  private readonly connections = new WeakMap<PoolClient, PooledConnection>();

  constructor(options: PoolOptions) {
    const { url, max, timeoutMs, pooler = 'session', log = () => undefined } = options;
    const { applicationName } = options;
    this.max = max;
    this.namedStatements = pooler === 'session';
    this.pg = new Pool({
      connectionString: url,
      max,
      min: 0,
      // tarn's (the pool under knex, before MikroORM 7) default; pg's own is 10 s.
      idleTimeoutMillis: 30_000,
      types: typeParsers(),
      ...(applicationName && { application_name: applicationName }),
      ...(timeoutMs && {
        connectionTimeoutMillis: timeoutMs,
        ...(pooler === 'session' && { statement_timeout: timeoutMs }),
      }),
    });
    // pg reports a connection dropped by the server as an 'error' event: on the pool for an
    // idle client, on the client while it is lent out. Unheard, either ends the process; the
    // statement in flight fails on its own, and the database's state is logged once (guard).
    this.pg.on('error', (error) => log(`idle connection lost: ${error.message}`));
    this.pg.on('connect', (client) => {
      client.on('error', (error) => log(`connection lost: ${error.message}`));
      this.watch.connected();
    });
  }

  /** The pool's settings (Kysely reads them to open a connection that cancels a query). */
  get options(): object {
    return this.pg.options;
  }

  /** Who hears the pool's events (one watcher: the database guard). */
  watchWith(watch: PoolWatch): void {
    this.watch = watch;
  }

  /** A connection, within the current request's deadline (see {@link acquireByDeadline}). */
  async connect(): Promise<PooledConnection> {
    this.waiting += 1;
    let client: PoolClient;
    try {
      client = await acquireByDeadline(this.pg, () => this.watch.deadlineReached());
    } catch (error) {
      if (
        !isDeadlineReached(error) &&
        !(error instanceof Error && error.message === QUEUE_TIMEOUT)
      ) {
        this.watch.connectFailed(error);
      }
      throw error;
    } finally {
      this.waiting -= 1;
    }
    let connection = this.connections.get(client);
    if (!connection) {
      connection = new PooledConnection(client, () => this.watch);
      this.connections.set(client, connection);
    }
    return connection.lend();
  }

  state(): PoolState {
    const { totalCount, idleCount } = this.pg;
    return {
      used: totalCount - idleCount,
      free: idleCount,
      waiting: this.waiting,
      max: this.max,
    };
  }

  /** Closes every connection (once: the ORM's close and the service's may both ask). */
  async end(): Promise<void> {
    if (this.ended) {
      return;
    }
    this.ended = true;
    await this.pg.end();
  }
}
