import { Client } from 'pg';
import { capturedLogger } from '../observability/log-capture';
import { meetingBody } from '../rest/rest-fixtures';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { testDatabaseKind } from '../helpers/test-database';
import { waitingRequestStatements } from '../helpers/lock-waits';

/**
 * One deadline per request: a table locked for longer than REQUEST_TIMEOUT_MS holds every
 * statement on it, and every request, however many statements it sends and whether it waits for
 * the lock or for a connection behind those that do, answers 503 within its budget; its
 * statement is cancelled on the server; readiness says the pool is stuck, and recovers.
 */
const BUDGET_MS = 2000;
const TOLERANCE_MS = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const suite = testDatabaseKind === 'postgres' ? describe : describe.skip;

suite('one deadline per request', () => {
  let t: TestApp;
  let ada: SeededUser;
  let bob: SeededUser;
  /** Connections in the service's pool (the test database's setting). */
  let poolSize: number;
  const logs = capturedLogger();

  beforeAll(async () => {
    t = await startTestApp({ REQUEST_TIMEOUT_MS: String(BUDGET_MS) }, { logger: logs.logger });
    poolSize = t.instance.database.pool.max;
    expect(poolSize).toBeGreaterThan(0);
    [ada, bob] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });
  afterAll(() => t.close());

  const timed = async (path: string, init: RequestInit = {}) => {
    const started = performance.now();
    const response = await fetch(`${t.url}${path}`, init);
    const body = (await response.text()) || null;
    return { status: response.status, body, ms: Math.round(performance.now() - started) };
  };
  const createMeeting = () =>
    timed('/api/v1/meeting/create', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ada.token}` },
      body: JSON.stringify(meetingBody([bob.id])),
    });
  const readMe = () =>
    timed('/api/v1/user/me', { headers: { authorization: `Bearer ${ada.token}` } });
  const readiness = () => timed('/health/readiness');
  /**
   * Readiness once the pool has been stuck for longer than the budget. The first failures of a
   * load land a little late on a busy machine (timers run late), so the stuck stretch may begin
   * up to a budget after the load's first deadline: asked again until then, each answer at once.
   */
  const readinessOnceStuck = async () => {
    const until = performance.now() + BUDGET_MS;
    let answer = await readiness();
    while (answer.status === 204 && performance.now() < until) {
      await sleep(100);
      answer = await readiness();
    }
    return answer;
  };

  /** The causes of the 503s logged so far: one line each, without a stack. */
  const unavailableCauses = (): string[] => {
    const lines = logs.lines.filter((line) => line['msg'] === 'database unavailable');
    for (const line of lines) {
      expect(JSON.stringify(line)).not.toContain('stack');
      expect(line['cause']).toMatchObject({ type: 'DeadlineExceededError' });
    }
    return lines.map((line) => (line['cause'] as { message: string }).message);
  };

  /** `clients` loops sending `send` until stopped, started a tenth of the budget apart. */
  const loadOf = (clients: number, send: () => Promise<unknown>) => {
    let running = true;
    const loops = Array.from({ length: clients }, async (_, k) => {
      await sleep((k * BUDGET_MS) / 10);
      while (running) {
        await send();
      }
    });
    return {
      stop: async () => {
        running = false;
        await Promise.all(loops);
      },
    };
  };
  let load: { stop(): Promise<void> } | null = null;
  afterEach(async () => {
    await load?.stop();
    load = null;
  });

  it('answers 503 within the budget behind a locked table and behind the full pool, cancels the statement, and readiness tells a stuck pool', async () => {
    const locker = new Client({
      connectionString: t.instance.database.url,
    });
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table meetings in access exclusive mode');
    const report: string[] = [];
    try {
      // Meeting creations take every connection and wait for the lock; reads of the user, which
      // never touch the table, wait behind them for a connection.
      const creations = Array.from({ length: poolSize }, createMeeting);
      await sleep(200);
      // The creations' statements are seen waiting for the lock (what is counted below).
      let seen = await waitingRequestStatements(locker);
      for (let tries = 0; seen === 0 && tries < 10; tries += 1) {
        await sleep(50);
        seen = await waitingRequestStatements(locker);
      }
      expect(seen).toBeGreaterThan(0);
      const reads = Array.from({ length: 4 }, readMe);
      const created = await Promise.all(creations);
      const read = await Promise.all(reads);
      report.push(`creations ${created.map((a) => `${a.status}/${a.ms}`).join(' ')}`);
      report.push(`reads ${read.map((a) => `${a.status}/${a.ms}`).join(' ')}`);
      for (const answer of created) {
        expect({ status: answer.status, body: answer.body }).toEqual({
          status: 503,
          body: '{"errors":"SERVICE_UNAVAILABLE"}',
        });
        expect(Math.abs(answer.ms - BUDGET_MS)).toBeLessThanOrEqual(TOLERANCE_MS);
      }
      // The reads got a connection once the creations' deadlines freed them, within the budget.
      for (const answer of read) {
        expect([200, 503]).toContain(answer.status);
        expect(answer.ms).toBeLessThanOrEqual(BUDGET_MS + TOLERANCE_MS);
      }

      // The cancelled statements are gone from the server, though the lock is still held.
      let waiting = await waitingRequestStatements(locker);
      for (let tries = 0; waiting !== 0 && tries < 10; tries += 1) {
        await sleep(100);
        waiting = await waitingRequestStatements(locker);
      }
      report.push(`statements waiting after the answers: ${waiting}`);
      expect(waiting).toBe(0);

      // Keep the pool saturated for longer than the budget, requests running out of it waiting
      // for a connection (more clients than connections, started apart): readiness answers 503,
      // at once, without waiting for a connection itself.
      expect((await readiness()).status).toBe(204);
      load = loadOf(2 * poolSize, createMeeting);
      await sleep(2 * BUDGET_MS + 500);
      const stuck = await readinessOnceStuck();
      report.push(
        `readiness while saturated: ${stuck.status}/${stuck.ms}, ` +
          `pool ${JSON.stringify(t.instance.database.pool.state())}`,
      );
      expect(stuck).toMatchObject({ status: 503, body: '{"errors":"SERVICE_UNAVAILABLE"}' });
      expect(stuck.ms).toBeLessThan(500);
      await locker.query('rollback');
      await load.stop();
      load = null;
      const released = performance.now();
      let ready = await readiness();
      while (ready.status !== 204 && performance.now() - released < BUDGET_MS + TOLERANCE_MS) {
        await sleep(100);
        ready = await readiness();
      }
      report.push(
        `readiness after the release: ${ready.status} in ${Math.round(performance.now() - released)} ms`,
      );
      expect(ready.status).toBe(204);
      expect((await createMeeting()).status).toBe(201);
    } finally {
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
      console.log(`request-deadline (budget ${BUDGET_MS} ms):\n  ${report.join('\n  ')}`);
    }

    // A 503 is one log line: its cause, no stack.
    expect(unavailableCauses()).toContain('request deadline reached waiting for a statement');
  }, 60_000);

  it('answers 503 within the budget when no connection frees up for it, and readiness tells a stuck pool', async () => {
    // Every connection of the pool held, outside any request (so without a deadline).
    const { pg } = t.instance.database.pool;
    const held = await Promise.all(Array.from({ length: poolSize }, () => pg.connect()));
    const report: string[] = [];
    try {
      const reads = await Promise.all(Array.from({ length: 4 }, readMe));
      report.push(`reads behind a held pool ${reads.map((a) => `${a.status}/${a.ms}`).join(' ')}`);
      for (const answer of reads) {
        expect(answer).toMatchObject({ status: 503, body: '{"errors":"SERVICE_UNAVAILABLE"}' });
        expect(Math.abs(answer.ms - BUDGET_MS)).toBeLessThanOrEqual(TOLERANCE_MS);
      }
      // Requests keep coming and running out of budget for longer than the budget.
      load = loadOf(3, readMe);
      await sleep(BUDGET_MS + 500);
      const stuck = await readinessOnceStuck();
      report.push(`readiness while held: ${stuck.status}/${stuck.ms}`);
      expect(stuck).toMatchObject({ status: 503, body: '{"errors":"SERVICE_UNAVAILABLE"}' });
      expect(stuck.ms).toBeLessThan(500);
      await load.stop();
      load = null;
    } finally {
      held.forEach((connection) => connection.release());
      console.log(
        `request-deadline, pool held (budget ${BUDGET_MS} ms):\n  ${report.join('\n  ')}`,
      );
    }
    expect(await readiness()).toMatchObject({ status: 204 });
    expect((await readMe()).status).toBe(200);
    expect(unavailableCauses()).toContain(
      'request deadline reached waiting for a pooled connection',
    );
  }, 60_000);
});
