import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type EmbeddedServer,
  openEmbeddedServer,
} from '../../src/platform/postgres/embedded/embedded-server';
import { EMBEDDED_URL_VARIABLE } from './embedded-url';
import { makeTemplate } from './template-database';

interface Running {
  server: EmbeddedServer;
  dataDir: string;
}

const key = Symbol.for('meetings.test.embedded-server');
type WithServer = typeof globalThis & { [key]?: Running };

/**
 * Jest global set-up of the embedded project: starts the embedded PostgreSQL server the service
 * ships, on a temporary data directory, once for the run, with the migrated template each test
 * file's database is cloned from (test-database.ts). Workers start after this and inherit the
 * variables.
 */
// Jest takes the set-up as the module's default export.
// eslint-disable-next-line no-restricted-syntax
export default async function setup(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meetings-test-embedded-'));
  // Every test thread's apps share this server: each app holds its request pool, the job queue's,
  // the event listener and its workers' connections, some tests run two apps (the service's own
  // default of 60 ran out with three files at once).
  const server = await openEmbeddedServer(dataDir, {
    attach: false,
    settings: { max_connections: '200' },
  });
  (globalThis as WithServer)[key] = { server, dataDir };
  process.env[EMBEDDED_URL_VARIABLE] = server.url;
  // The template goes with the server's directory: the tear-down has nothing else to drop.
  await makeTemplate('embedded', server.url);
}

/** Jest global tear-down: stops the server and removes its directory. */
export async function teardown(): Promise<void> {
  const running = (globalThis as WithServer)[key];
  if (running) {
    await running.server.stop();
    rmSync(running.dataDir, { recursive: true, force: true });
  }
}
