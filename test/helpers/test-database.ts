import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DatabaseConfig } from '../../src/config';

declare const __TEST_DATABASE__: 'pglite' | 'postgres';
declare const __TEST_DATABASE_URL__: string | undefined;

/** Which database this jest project runs on. */
export const testDatabaseKind: 'pglite' | 'postgres' = __TEST_DATABASE__;

/** A database for one test file, with its removal. */
export interface TestDatabase {
  config: DatabaseConfig;
  drop(): Promise<void>;
}

async function withAdmin<T>(adminUrl: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** An empty database: PGlite in memory, or a freshly created PostgreSQL database. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDatabaseKind === 'pglite') {
    return { config: { kind: 'pglite', dataDir: null }, drop: async () => {} };
  }
  const adminUrl = __TEST_DATABASE_URL__ as string;
  const name = `test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`create database "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    config: { kind: 'postgres', url: url.toString(), poolSize: 5 },
    drop: () =>
      withAdmin(adminUrl, async (client) => {
        await client.query(`drop database if exists "${name}" with (force)`);
      }),
  };
}
