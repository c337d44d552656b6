import { PGBOUNCER_URL_VARIABLE, type RunningPgbouncer, startPgbouncer } from './pgbouncer';
import templateSetup, { teardown as templateTeardown } from './postgres-template.setup';

const key = Symbol.for('meetings.test.pgbouncer');
type WithPgbouncer = typeof globalThis & { [key]?: RunningPgbouncer };

/**
 * Jest global set-up of the pgbouncer project: starts pgbouncer in transaction mode in front of
 * the project's PostgreSQL, once for the run; each test file's database (test-database.ts) is
 * reached through it, its LISTEN and migrations straight, cloned from the run's template on the
 * server (made here when the postgres project did not make it first). jest.config.js found the binary; it only
 * adds the project without one when CI is set, where these suites must run.
 */
// Jest takes the set-up as the module's default export.
// eslint-disable-next-line no-restricted-syntax
export default async function setup(
  globalConfig: unknown,
  project: { globals: Record<string, unknown> },
): Promise<void> {
  const binary = project.globals['__PGBOUNCER_BINARY__'];
  const target = project.globals['__TEST_DATABASE_URL__'];
  if (typeof binary !== 'string' || typeof target !== 'string') {
    throw new Error(
      'pgbouncer is not installed, and CI is set: the suites through pgbouncer must run ' +
        '(apt-get install pgbouncer; .ci/run installs it)',
    );
  }
  await templateSetup(globalConfig, project);
  const running = await startPgbouncer(binary, new URL(target));
  process.env[PGBOUNCER_URL_VARIABLE] = running.url;
  (globalThis as WithPgbouncer)[key] = running;
}

/** Jest global tear-down: stops pgbouncer and removes its directory. */
export async function teardown(): Promise<void> {
  await (globalThis as WithPgbouncer)[key]?.stop();
  await templateTeardown();
}
