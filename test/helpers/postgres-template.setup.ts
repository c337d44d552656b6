import { dropTemplate, makeTemplate } from './template-database';

const key = Symbol.for('meetings.test.postgres-template');
type WithTemplate = typeof globalThis & { [key]?: { adminUrl: string; name: string } };

/**
 * Jest global set-up of the projects on PostgreSQL (postgres, pgbouncer): the migrated template
 * each test file's database is cloned from, made once for the run on the server.
 */
// Jest takes the set-up as the module's default export.
// eslint-disable-next-line no-restricted-syntax
export default async function setup(
  _global: unknown,
  project: { globals: Record<string, unknown> },
): Promise<void> {
  const adminUrl = project.globals['__TEST_DATABASE_URL__'];
  if (typeof adminUrl !== 'string') {
    throw new Error('a PostgreSQL project without __TEST_DATABASE_URL__ in its globals');
  }
  // Once for both projects: the first to get here makes it, and its tear-down drops it.
  const name = await makeTemplate('postgres', adminUrl);
  if (name) {
    (globalThis as WithTemplate)[key] = { adminUrl, name };
  }
}

/** Jest global tear-down: drops the template this run made. */
export async function teardown(): Promise<void> {
  const made = (globalThis as WithTemplate)[key];
  delete (globalThis as WithTemplate)[key];
  if (made) {
    await dropTemplate(made.adminUrl, made.name);
  }
}
