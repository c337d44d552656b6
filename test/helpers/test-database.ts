import { randomBytes } from 'node:crypto';
import type { DatabaseConfig } from '../../src/config';
import { type Database, openDatabase } from '../../src/platform/postgres/orm';
import { EMBEDDED_URL_VARIABLE } from './embedded-url';
import { pgbouncerUrl, throughPooler } from './pgbouncer';
import { dataModel } from '../../src/data-model';
import { databaseUrl, templateVariable, withAdmin } from './template-database';

declare const __TEST_DATABASE__: 'embedded' | 'postgres';
declare const __TEST_DATABASE_URL__: string | undefined;

/** Which database this jest project runs on. */
export const testDatabaseKind: 'embedded' | 'postgres' = __TEST_DATABASE__;

/** The server this project's databases are created on (its URL names its default database). */
export function adminUrl(): string {
  if (testDatabaseKind === 'embedded') {
    // Started once for the project by test/helpers/embedded-server.setup.ts.
    return process.env[EMBEDDED_URL_VARIABLE] as string;
  }
  return __TEST_DATABASE_URL__ as string;
}

/** A database for one test file, with its removal. */
export interface TestDatabase {
  config: DatabaseConfig;
  drop(): Promise<void>;
}

/**
 * A database freshly created on the project's server: the embedded PostgreSQL the service ships
 * (one server per run, from the same code the service starts it with), or PostgreSQL; in the
 * pgbouncer project, reached through pgbouncer in transaction mode, with its direct URL for LISTEN
 * and migrations (DATABASE_POOLER=transaction, DATABASE_DIRECT_URL). It is a copy of the run's
 * template, migrated as the service's first start leaves a database (template-database.ts), or
 * with `empty`, a database with no table at all.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const admin = adminUrl();
  const name = `test_${randomBytes(6).toString('hex')}`;
  const template = options.empty ? undefined : process.env[templateVariable(testDatabaseKind)];
  await withAdmin(admin, (client) =>
    client.query(`create database "${name}"${template ? ` template "${template}"` : ''}`),
  );
  const url = new URL(databaseUrl(admin, name));
  const pooler = pgbouncerUrl();
  return {
    config: pooler
      ? {
          kind: 'postgres',
          url: throughPooler(url.toString(), pooler),
          poolSize: 5,
          pooler: 'transaction',
          directUrl: url.toString(),
        }
      : { kind: 'postgres', url: url.toString(), poolSize: 5 },
    drop: () =>
      withAdmin(admin, async (client) => {
        await client.query(`drop database if exists "${name}" with (force)`);
      }),
  };
}

/**
 * A fresh empty database opened (without migrations) before a file's tests and dropped after
 * them; answers it once open.
 */
export function useOpenedDatabase(): () => Database {
  let target: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    target = await createTestDatabase({ empty: true });
    database = await openDatabase(target.config, { model: dataModel, migrate: false });
  });
  afterAll(async () => {
    await database.close();
    await target.drop();
  });
  return () => database;
}
