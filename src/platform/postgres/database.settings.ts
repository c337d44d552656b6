import { z } from 'zod';
import { defineSettings } from '../settings/settings';
import { flag, optionalUrl } from '../settings/values';
import type { DatabaseConfig } from './database-config';
import { DEFAULT_RESTART_ATTEMPTS } from './embedded/supervisor';
import { REPLICA_ENV, replicasOf } from './replicas/replica.settings';

// Where the data lives. Loaded with the configuration, before tracing starts: no driver here.

/** Where the data lives, and whether the service migrates it at start. */
export const databaseSettings = defineSettings({
  area: 'Database',
  about:
    '[Operations](operations.md#using-postgresql) explains PostgreSQL, poolers, read replicas ' +
    'and the embedded database.',
  variables: {
    DATABASE_URL: optionalUrl().meta({
      description: 'PostgreSQL URL; unset means the embedded database',
    }),
    DATABASE_POOLER: z
      .enum(['session', 'transaction'])
      .default('session')
      .meta({
        description:
          '`transaction` behind a transaction pooler: no named statements ' +
          '([behind a connection pooler](operations.md#behind-a-connection-pooler))',
      }),
    DATABASE_DIRECT_URL: optionalUrl().meta({
      description:
        'the database without a pooler, for LISTEN and migrations (needed with ' +
        '`DATABASE_POOLER=transaction`)',
    }),
    ...REPLICA_ENV,
    DATA_DIR: z
      .string()
      .min(1)
      .default('./data')
      .meta({ description: 'where the embedded database is stored' }),
    EMBEDDED_RESTART_ATTEMPTS: z.coerce
      .number()
      .int()
      .min(0)
      .max(100)
      .default(DEFAULT_RESTART_ATTEMPTS)
      .meta({
        description: 'tries to restart a dead embedded server before the process exits (69)',
      }),
    DB_POOL_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(10)
      .meta({ description: 'connection pool size (PostgreSQL server or embedded)' }),
    MIGRATE_ON_START: flag().default(true).meta({ description: 'apply migrations at start' }),
  },
  check(env, problem) {
    if (env.DATABASE_POOLER === 'transaction' && !env.DATABASE_DIRECT_URL) {
      problem(
        'DATABASE_DIRECT_URL',
        'must be set when DATABASE_POOLER=transaction: a direct (session) connection to the ' +
          'same database, for LISTEN and migrations, which a transaction pooler cannot carry',
      );
    }
    if ((env.DATABASE_POOLER === 'transaction' || env.DATABASE_DIRECT_URL) && !env.DATABASE_URL) {
      problem(
        'DATABASE_URL',
        'must be set with DATABASE_POOLER=transaction or DATABASE_DIRECT_URL (the embedded ' +
          'database is reached without a pooler)',
      );
    }
    if (env.DATABASE_READ_URLS.length > 0 && !env.DATABASE_URL) {
      problem(
        'DATABASE_READ_URLS',
        'needs DATABASE_URL: read replicas are standbys of a PostgreSQL server, which the ' +
          'embedded database is not',
      );
    }
  },
  configOf: (env): { database: DatabaseConfig; migrateOnStart: boolean } => ({
    database: env.DATABASE_URL
      ? {
          kind: 'postgres',
          url: env.DATABASE_URL,
          poolSize: env.DB_POOL_SIZE,
          ...(env.DATABASE_POOLER === 'transaction' && { pooler: env.DATABASE_POOLER }),
          ...(env.DATABASE_DIRECT_URL && { directUrl: env.DATABASE_DIRECT_URL }),
          ...replicasOf(env),
        }
      : {
          kind: 'embedded',
          dataDir: env.DATA_DIR,
          poolSize: env.DB_POOL_SIZE,
          restartAttempts: env.EMBEDDED_RESTART_ATTEMPTS,
        },
    migrateOnStart: env.MIGRATE_ON_START,
  }),
});
