import type { Logger } from 'pino';
import { type AppInstance, createApp } from '../../src/app';
import { type Config, loadConfig } from '../../src/app-config';
import type { DatabaseConfig } from '../../src/config';
import { createTestDatabase, type TestDatabase } from './test-database';
import { GraphQLClient } from './graphql-client';
import { Seed } from './seed';

/** A running service on its own empty database, with clients and seed builders. */
export interface TestApp {
  url: string;
  instance: AppInstance;
  gql: GraphQLClient;
  seed: Seed;
  /** SQL statements the service sent while `fn` ran. */
  countQueries(fn: () => Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

/** How a test runs the service, beside its environment. */
export interface TestAppOptions {
  /** An existing database (default: a fresh one, dropped on close). */
  database?: DatabaseConfig;
  logger?: (config: Config) => Logger;
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
}

/** Boots the production wiring (createApp) on a fresh database, listening on 127.0.0.1 by default. */
export async function startTestApp(
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const database: TestDatabase = options.database
    ? { config: options.database, drop: async () => {} }
    : await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    // TEST_LOG_LEVEL=error shows the service's own logs while debugging a failing test.
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
    // Suites sign many users up from one address; the rate-limit tests set their own budgets.
    RATE_LIMIT_AUTH_PER_IP: '1000000',
    RATE_LIMIT_AUTH_PER_ACCOUNT: '1000000',
    ...env,
  });
  const instance = await createApp({
    config: { ...config, database: database.config },
    logger: options.logger?.(config),
    // Tests hash many passwords; argon2id with a small cost keeps them quick.
    passwordCost: { memoryCost: 1024, timeCost: 1 },
  });
  const url = await instance.listen(0, options.host ?? '127.0.0.1');
  const gql = new GraphQLClient(`${url}/graphql`);
  return {
    url,
    instance,
    gql,
    seed: new Seed(gql, instance.database.orm),
    async countQueries(fn) {
      const before = instance.queries.total;
      await fn();
      return instance.queries.total - before;
    },
    async close() {
      await instance.close();
      await database.drop();
    },
  };
}

/**
 * Another instance of the service on `first`'s database (on the embedded default, the same
 * server), as a second machine of one deployment would be.
 */
export function startSecondInstance(first: TestApp, poolSize = 5): Promise<TestApp> {
  return startTestApp(
    {},
    { database: { kind: 'postgres', url: first.instance.database.url, poolSize } },
  );
}
