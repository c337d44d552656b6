import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { openDatabase } from '../../src/platform/postgres/orm';
import { dataModel } from '../../src/data-model';

/** A server's kind, as the jest projects name them (the pgbouncer project uses the postgres one). */
export type ServerKind = 'embedded' | 'postgres';

/** The environment variable naming the migrated template database on a server of this kind. */
export const templateVariable = (kind: ServerKind): string =>
  `MEETINGS_TEST_TEMPLATE_${kind.toUpperCase()}`;

/** A database on the server `adminUrl` names. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `fn` with a client of the database `adminUrl` names (the server's default), closed after. */
export async function withAdmin<T>(
  adminUrl: string,
  fn: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Jest global set-up's half of the test databases: a database on the server made once per run the
 * way the service makes its own at first start (the migrations, then the job queue's schema, which
 * graphile-worker installs), so that each test file clones it (`CREATE DATABASE … TEMPLATE`, a file
 * copy) instead of migrating a database of its own. Its name reaches the workers through the
 * environment; an existing one (another project on the same server) is reused. Answers the name
 * when this call made it, for the tear-down to drop.
 */
export async function makeTemplate(kind: ServerKind, adminUrl: string): Promise<string | null> {
  if (process.env[templateVariable(kind)]) {
    return null;
  }
  const name = `meetings_template_${randomBytes(4).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`create database "${name}"`));
  const url = databaseUrl(adminUrl, name);
  const database = await openDatabase({ kind: 'postgres', url, poolSize: 2 }, { model: dataModel });
  await database.close();
  const worker = await import('graphile-worker');
  await worker.runMigrations({
    connectionString: url,
    logger: new worker.Logger(() => () => undefined),
  });
  process.env[templateVariable(kind)] = name;
  return name;
}

/** Jest global tear-down's half: drops the template this run made. */
export async function dropTemplate(adminUrl: string, name: string): Promise<void> {
  await withAdmin(adminUrl, (client) =>
    client.query(`drop database if exists "${name}" with (force)`),
  );
}
