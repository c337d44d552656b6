import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataDirectoryBusyError } from '../../src/platform/postgres/embedded/data-dir-lock';
import { openEmbeddedServer } from '../../src/platform/postgres/embedded/embedded-server';
import type { HealthChange } from '../../src/platform/postgres/embedded/supervisor';
import { testDatabaseKind } from '../helpers/test-database';

/** One statement on a server, on a connection of its own. */
async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

(testDatabaseKind === 'embedded' ? describe : describe.skip)('the embedded server', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'meetings-embedded-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is refused to a second owner, naming the holder, and joined by a process that attaches', async () => {
    const owner = await openEmbeddedServer(dataDir, { attach: false });
    try {
      const refusal = openEmbeddedServer(dataDir, { attach: false });
      await expect(refusal).rejects.toBeInstanceOf(DataDirectoryBusyError);
      await expect(refusal).rejects.toThrow(`in use by process ${process.pid}`);

      const guest = await openEmbeddedServer(dataDir, { attach: true });
      expect(guest.owned).toBe(false);
      await query(owner.url, 'create table shared (n int); insert into shared values (42)');
      expect(await query(guest.url, 'select n from shared')).toEqual([{ n: 42 }]);
      await guest.stop();
      // A guest's stop leaves the owner's server running.
      expect(await query(owner.url, 'select count(*)::int as rows from shared')).toEqual([
        { rows: 1 },
      ]);
    } finally {
      await owner.stop();
    }
  });

  it('takes over the lock of a process that died, and keeps the data', async () => {
    const first = await openEmbeddedServer(dataDir, { attach: false });
    await query(first.url, 'create table kept (n int); insert into kept values (7)');
    await first.stop();
    // A lock left by a holder that no longer runs (kill -9, power loss).
    writeFileSync(
      join(dataDir, 'embedded.lock'),
      JSON.stringify({ pid: 2 ** 22 + 1, command: 'gone', port: 1, startedAt: Date.now() }),
    );
    const second = await openEmbeddedServer(dataDir, { attach: false });
    try {
      expect(second.owned).toBe(true);
      expect(JSON.parse(readFileSync(join(dataDir, 'embedded.lock'), 'utf8'))).toMatchObject({
        pid: process.pid,
      });
      expect(await query(second.url, 'select n from kept')).toEqual([{ n: 7 }]);
    } finally {
      await second.stop();
    }
  });

  it('starts its server again on the same port after kill -9, with every committed row', async () => {
    const server = await openEmbeddedServer(dataDir, { attach: false });
    try {
      const changes: HealthChange[] = [];
      server.onHealthChange((change) => changes.push(change));
      await query(server.url, 'create table kept (n int); insert into kept values (1), (2)');
      const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
      const killed = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      process.kill(killed, 'SIGKILL');
      const deadline = Date.now() + 30_000;
      while (server.health() !== 'up' || changes.length === 0) {
        if (Date.now() > deadline) {
          throw new Error(`not back within 30 s: ${JSON.stringify(changes)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(changes).toEqual([
        { health: 'restarting', exit: expect.any(Object) },
        { health: 'up', attempts: expect.any(Number), downMs: expect.any(Number) },
      ]);
      expect(Number(readFileSync(pidFile, 'utf8').split('\n')[0])).not.toBe(killed);
      // The same URL (port and credentials) reaches the restarted server and its data.
      expect(await query(server.url, 'select n from kept order by n')).toEqual([
        { n: 1 },
        { n: 2 },
      ]);
      expect(JSON.parse(readFileSync(join(dataDir, 'embedded.lock'), 'utf8'))).toMatchObject({
        pid: process.pid,
      });
    } finally {
      await server.stop();
    }
    expect(existsSync(join(dataDir, 'embedded.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  });

  it('refuses a directory written by PGlite instead of touching it', async () => {
    mkdirSync(join(dataDir, 'base'));
    writeFileSync(join(dataDir, 'PG_VERSION'), '17\n');
    await expect(openEmbeddedServer(dataDir, { attach: false })).rejects.toThrow(/PGlite/);
    expect(readFileSync(join(dataDir, 'PG_VERSION'), 'utf8')).toBe('17\n');
  });
});
