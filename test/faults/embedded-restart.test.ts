import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../src/platform/shared/free-port';
import { testDatabaseKind } from '../helpers/test-database';
import { lostWrites } from './support/acknowledged';
import { useEmbeddedFixture } from './support/embedded-fixture';
import { call, isSuccess, MixedLoad, type Outcome, register, tally } from './support/load';
import { type Exit, serviceEnv, startService } from './support/service';

/**
 * The embedded database server dies under the service (kill -9 of its postmaster) while ten
 * clients write: the service starts it again by itself on the same data directory and port,
 * readiness says 503 meanwhile, writes resume, and every write acknowledged before, during or
 * after the outage is there. A server that cannot be started again (its data directory made
 * unreadable by this PostgreSQL) ends in liveness 503, one log line, and a non-zero exit. The
 * cluster start mode's primary, which runs the server for its workers, restarts it too.
 * Runs once, in the embedded jest project.
 */

const RECOVERY_MS = 15_000;
const WRITERS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const suite = testDatabaseKind === 'embedded' ? describe : describe.skip;

const WRITES: ReadonlySet<Outcome['op']> = new Set(['register', 'graphql-register', 'follow']);

/** What the data directory's lock says: who serves it, on which port. */
interface Lock {
  pid: number;
  port: number;
}

/** Polls a health path every 50 ms, keeping each answer (null: no answer). */
function poll(url: string, path: string) {
  const seen: Array<{ at: number; status: number | null }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const reply = await call(url, 'GET', path, { timeoutMs: 2_000 });
      seen.push({ at: performance.now(), status: reply.status });
      await sleep(50);
    }
  })();
  return {
    seen,
    async stop() {
      running = false;
      await loop;
    },
  };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

suite('supervision of the embedded database server', () => {
  const fixture = useEmbeddedFixture('restart');
  const files = () => ({
    postmasterPid: join(fixture.dataDir, 'postgres', 'postmaster.pid'),
    version: join(fixture.dataDir, 'postgres', 'PG_VERSION'),
    lock: join(fixture.dataDir, 'embedded.lock'),
    credentials: join(fixture.dataDir, 'credentials.json'),
  });
  const serverPid = () => Number(readFileSync(files().postmasterPid, 'utf8').split('\n')[0]);
  const lock = () => JSON.parse(readFileSync(files().lock, 'utf8')) as Lock;

  it('restarts a server killed under ten writers on the same port, and loses no acknowledged write', async () => {
    const service = await fixture.start({}, { startTimeoutMs: 60_000 });
    const before = lock();
    expect(before.pid).toBe(service.pid);
    const load = new MixedLoad(service.url, {
      clients: WRITERS,
      tag: `r${randomBytes(3).toString('hex')}`,
      graphql: true,
      timeoutMs: 10_000,
    });
    await load.setup();
    load.start();
    const written = () => load.users.length + load.follows.length;
    const initial = written();
    while (written() - initial < 30) {
      await sleep(50);
    }

    const readiness = poll(service.url, '/health/readiness');
    const killedAt = performance.now();
    process.kill(serverPid(), 'SIGKILL');
    // Back: readiness said 503, and a write sent after that was acknowledged (a write sent just
    // after the kill may still be committed by a backend that has not noticed yet).
    let recoveredAt: number | null = null;
    while (recoveredAt === null && performance.now() - killedAt < RECOVERY_MS + 5_000) {
      const down = readiness.seen.find((seen) => seen.at > killedAt && seen.status === 503);
      const write = down
        ? load.outcomes.find((o) => WRITES.has(o.op) && o.start > down.at && isSuccess(o))
        : undefined;
      recoveredAt = write ? write.end : null;
      await sleep(50);
    }
    // Writes go on for a while after the restart.
    const afterRestart = written();
    await sleep(1_500);
    await load.stop();
    await readiness.stop();

    const outage = load.outcomes.filter((o) => o.end > killedAt);
    const back = service.logs.find((line) => /is back/.test(line.msg ?? ''));
    console.log(
      `embedded-restart: ${WRITERS} clients; back ${recoveredAt === null ? 'never' : Math.round(recoveredAt - killedAt)} ms ` +
        `after kill -9 (server back after ${String(back?.['downMs'])} ms, attempt ` +
        `${String(back?.['attempts'])}); ${load.users.length} registrations and ${load.follows.length} follows ` +
        `acknowledged (${written() - afterRestart} after the restart); readiness ` +
        `${JSON.stringify(tallyStatuses(readiness.seen.map((s) => s.status)))}; requests ending after ` +
        `the kill ${JSON.stringify(tally(outage))}`,
    );
    expect(recoveredAt).not.toBeNull();
    expect((recoveredAt as number) - killedAt).toBeLessThan(RECOVERY_MS);
    expect(readiness.seen.some((seen) => seen.status === 503)).toBe(true);
    expect((await call(service.url, 'GET', '/health/readiness')).status).toBe(204);
    expect((await call(service.url, 'GET', '/health/liveness')).status).toBe(204);
    expect(written() - afterRestart).toBeGreaterThan(0);

    // The same process still holds the directory, and the server is on the same port.
    expect(lock()).toMatchObject({ pid: service.pid, port: before.port });
    const credentials = JSON.parse(readFileSync(files().credentials, 'utf8')) as {
      user: string;
      password: string;
      database: string;
    };
    const client = new Client({
      connectionString: `postgres://${credentials.user}:${credentials.password}@127.0.0.1:${before.port}/${credentials.database}`,
    });
    await client.connect();
    try {
      expect(await lostWrites(client, load)).toEqual({ users: [], follows: [] });
    } finally {
      await client.end();
    }

    // One line when it went down, one when it came back.
    const lines = (text: RegExp) => service.logs.filter((line) => text.test(line.msg ?? ''));
    expect(lines(/stopped unexpectedly/)).toEqual([
      expect.objectContaining({ level: 50, component: 'embedded-database', signal: null }),
    ]);
    expect(lines(/is back/)).toEqual([
      expect.objectContaining({ level: 40, attempts: expect.any(Number) }),
    ]);

    // The restarted server stops with the service, and the lock is given up.
    expect(await service.stop()).toEqual<Exit>({ code: 0, signal: null });
    expect(existsSync(files().postmasterPid)).toBe(false);
    expect(existsSync(files().lock)).toBe(false);
  }, 120_000);

  it('restarts the server the cluster primary runs for its workers', async () => {
    const clusterDir = mkdtempSync(join(tmpdir(), 'meetings-faults-cluster-restart-'));
    try {
      const primary = fixture.track(
        await startService(
          fixture.script('cluster.js'),
          {
            ...serviceEnv({ DATA_DIR: clusterDir }),
            CLUSTER_WORKERS: '2',
            // Not the cluster's default 9464: another file's cluster may hold it (files run at once).
            METRICS_PORT: String(await freePort()),
          },
          { startTimeoutMs: 60_000 },
        ),
      );
      expect((await register(primary.url, 'clusterbefore')).status).toBe(201);
      const postmaster = join(clusterDir, 'postgres', 'postmaster.pid');
      const killedAt = performance.now();
      process.kill(Number(readFileSync(postmaster, 'utf8').split('\n')[0]), 'SIGKILL');
      const statuses: Array<number | null> = [];
      for (let i = 0; ; i += 1) {
        const reply = await register(primary.url, `clusterafter${i}`);
        statuses.push(reply.status);
        if (reply.status === 201 || performance.now() - killedAt > RECOVERY_MS) {
          break;
        }
        await sleep(100);
      }
      const backMs = Math.round(performance.now() - killedAt);
      console.log(
        `embedded-restart: cluster primary: registering again ${backMs} ms after kill -9 ` +
          `(${JSON.stringify(tallyStatuses(statuses))})`,
      );
      expect(statuses.at(-1)).toBe(201);
      // A worker's pooled request may get through the moment the server accepts again, before
      // the supervisor has logged it back: the line is awaited, then counted.
      const backLines = () => primary.logs.filter((line) => /is back/.test(line.msg ?? ''));
      for (const started = performance.now(); backLines().length === 0; ) {
        if (performance.now() - started > 5_000) {
          break;
        }
        await sleep(100);
      }
      expect(backLines()).toHaveLength(1);
      const lock = JSON.parse(readFileSync(join(clusterDir, 'embedded.lock'), 'utf8')) as Lock;
      expect(lock.pid).toBe(primary.pid);

      // It still stops cleanly with its workers, the restarted server with it.
      expect(await primary.stop()).toEqual<Exit>({ code: 0, signal: null });
      expect(existsSync(join(clusterDir, 'embedded.lock'))).toBe(false);
      expect(existsSync(postmaster)).toBe(false);
    } finally {
      rmSync(clusterDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('answers liveness 503 and exits non-zero with one line when the server cannot be restarted', async () => {
    const service = await fixture.start(
      { EMBEDDED_RESTART_ATTEMPTS: '2' },
      { startTimeoutMs: 60_000 },
    );
    const version = readFileSync(files().version, 'utf8');
    const liveness = poll(service.url, '/health/liveness');
    try {
      // This PostgreSQL refuses to start on a directory claiming another major version; the
      // running server never reads the file again.
      writeFileSync(files().version, '11\n');
      process.kill(serverPid(), 'SIGKILL');
      const exit = await within(service.exited, 30_000, 'the exit');
      await liveness.stop();
      expect(exit.code).toBe(69);
      const statuses = liveness.seen.map((seen) => seen.status);
      // Alive while restarting, then 503, then no answer once the process is gone.
      expect(statuses).toContain(503);
      expect(statuses.indexOf(503)).toBeGreaterThan(statuses.indexOf(204));
      expect(statuses.slice(statuses.indexOf(503)).every((s) => s === 503 || s === null)).toBe(
        true,
      );
      const fatal = service.logs.filter((line) => line.level === 60);
      expect(fatal).toEqual([
        expect.objectContaining({
          component: 'embedded-database',
          msg: 'the embedded database server could not be restarted; exiting',
          attempts: 2,
          reason: expect.stringMatching(/incompatible with server/),
        }),
      ]);
      // Nothing is left running on the directory, and its lock is free for the next start.
      expect(existsSync(files().lock)).toBe(false);
      console.log(
        `embedded-restart: unrestartable server: liveness ${JSON.stringify(tallyStatuses(statuses))}, ` +
          `exit ${JSON.stringify(exit)}, ${fatal.length} fatal line`,
      );
    } finally {
      await liveness.stop();
      writeFileSync(files().version, version);
    }
  }, 60_000);
});

function tallyStatuses(statuses: Array<number | null>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses) {
    counts[String(status)] = (counts[String(status)] ?? 0) + 1;
  }
  return counts;
}
