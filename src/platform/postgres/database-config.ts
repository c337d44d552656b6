import type { ReplicaConfig } from './replicas/replica.settings';

// The database settings as the platform takes them (database.settings.ts reads them from the
// environment).

/**
 * How DATABASE_URL reaches PostgreSQL: straight or through a session pooler (`session`: a
 * connection is one server session), or through a pooler that hands each transaction whichever
 * server connection is free (`transaction`: pgbouncer's pool_mode=transaction, RDS Proxy, the
 * Supabase and Neon poolers), where nothing may outlive a transaction: no named prepared
 * statements, no session settings, no LISTEN.
 */
export type Pooler = 'session' | 'transaction';

/**
 * Where the data lives: a PostgreSQL server, or the embedded PostgreSQL server this service runs
 * on a data directory of its own.
 */
export type DatabaseConfig =
  | {
      kind: 'postgres';
      url: string;
      poolSize: number;
      /** DATABASE_POOLER; absent: `session`. */
      pooler?: Pooler;
      /**
       * DATABASE_DIRECT_URL: a session connection to the same database for LISTEN and
       * migrations; absent: `url` serves them too.
       */
      directUrl?: string;
      /** The variable that names `url`, for start-up errors; absent: DATABASE_URL. */
      urlVariable?: string;
      /**
       * DATABASE_READ_URLS: streaming replicas of `url` that reads outside transactions may
       * use, skipped when more than `maxLagMs` behind (DATABASE_READ_MAX_LAG_MS); absent: none.
       */
      replicas?: ReplicaConfig;
    }
  | {
      kind: 'embedded';
      dataDir: string;
      poolSize: number;
      /** Restart attempts when the server dies before the process gives up (default 5). */
      restartAttempts?: number;
    };
