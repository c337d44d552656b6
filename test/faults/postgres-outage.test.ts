import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { testDatabaseKind } from '../helpers/test-database';
import { waitingRequestStatements } from '../helpers/lock-waits';
import { meetingBody } from '../rest/rest-fixtures';
import { lostWrites } from './support/acknowledged';
import { buildService, type ServiceBuild } from './support/build';
import {
  call,
  describeOutcome,
  tally,
  isServiceUnavailable,
  isSuccess,
  MixedLoad,
  type Outcome,
  registerAndLogin,
} from './support/load';
import {
  startThrowawayPostgres,
  throwawayPostgresUnavailable,
  type ThrowawayPostgres,
} from './support/postgres';
import { type ServiceProcess, serviceEnv, startService } from './support/service';

/**
 * PostgreSQL dies under load and comes back: while it is down every request fails fast with the
 * contract's 503 (never a 500, never a hang) and readiness says so; once it is back the same
 * process serves again by itself; nothing acknowledged before (or around) the outage is lost.
 *
 * Runs on a throwaway server of its own (the machine's shared one is never stopped), and once:
 * in the embedded jest project, which always exists (the fault needs no project database).
 */

const FAIL_FAST_MS = 5_000;
const RECOVERY_MS = 20_000;
const OUTAGES = 2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) {
      return true;
    }
    await sleep(100);
  }
  return false;
}

const skipReason =
  testDatabaseKind !== 'embedded'
    ? null // runs in the embedded project only; nothing to say in the other one
    : throwawayPostgresUnavailable();
if (skipReason) {
  console.warn(`postgres-outage: skipped: ${skipReason}`);
}
const suite = testDatabaseKind === 'embedded' && !skipReason ? describe : describe.skip;

suite('a PostgreSQL outage under load', () => {
  let pg: ThrowawayPostgres | undefined;
  let build: ServiceBuild | undefined;
  let service: ServiceProcess | undefined;
  let setupProblem: string | null = null;

  beforeAll(async () => {
    try {
      pg = await startThrowawayPostgres(['meetings']);
    } catch (error) {
      // The binaries are here but the server does not run: a failure in CI, a note elsewhere.
      if (process.env['CI']) {
        throw error;
      }
      setupProblem = error instanceof Error ? error.message : String(error);
      console.warn(`postgres-outage: skipped: cannot run a throwaway server: ${setupProblem}`);
      return;
    }
    build = buildService();
    service = await startService(
      build.main,
      serviceEnv({ DATABASE_URL: pg.url('meetings'), DB_POOL_SIZE: '5' }),
    );
  }, 90_000);

  afterAll(async () => {
    await service?.kill();
    build?.remove();
    await pg?.destroy();
  }, 60_000);

  it('fails fast with 503 while the database is down, recovers by itself, loses nothing acknowledged', async () => {
    if (setupProblem || !pg || !service) {
      return;
    }
    const server = pg;
    const url = service.url;
    const load = new MixedLoad(url, {
      clients: 4,
      tag: `o${randomBytes(3).toString('hex')}`,
      timeoutMs: 15_000,
    });
    await load.setup();
    const readiness: Array<{ at: string; status: number | null; body: unknown; ms: number }> = [];
    const checkReadiness = async (at: string) => {
      const result = await call(url, 'GET', '/health/readiness', { timeoutMs: 15_000 });
      readiness.push({ at, status: result.status, body: result.body, ms: result.ms });
      return result;
    };
    expect((await checkReadiness('before')).status).toBe(204);

    // Windows (performance.now()) in which every request must be a success, or a fast 503.
    const mustSucceed: Array<[number, number]> = [];
    const mustBeUnavailable: Array<[number, number]> = [];
    const outages: Array<{ downMs: number; recoveredAfterMs: number }> = [];

    load.start();
    let steadyFrom = performance.now();
    for (let outage = 1; outage <= OUTAGES; outage += 1) {
      await sleep(3_000);
      const stopping = performance.now();
      mustSucceed.push([steadyFrom, stopping]);
      await server.stopImmediate();
      const stopped = performance.now();

      // Load keeps going against the dead database.
      await sleep(1_500);
      const down = await checkReadiness(`outage ${outage}`);
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ errors: 'SERVICE_UNAVAILABLE' });
      await sleep(1_500);

      const starting = performance.now();
      mustBeUnavailable.push([stopped, starting]);
      await server.start();
      const started = performance.now();
      const recovered = await waitFor(
        () => load.outcomes.some((outcome) => outcome.start >= started && isSuccess(outcome)),
        RECOVERY_MS,
      );
      expect(recovered).toBe(true);
      const ready = await waitFor(
        async () => (await checkReadiness(`recovery ${outage}`)).status === 204,
        RECOVERY_MS,
      );
      expect(ready).toBe(true);
      const recoveredAt = performance.now();
      outages.push({
        downMs: Math.round(starting - stopping),
        recoveredAfterMs: Math.round(recoveredAt - started),
      });
      // Connections broken by the crash may still fail once; from a moment on, all is well.
      steadyFrom = recoveredAt + 500;
    }
    await sleep(3_000);
    mustSucceed.push([steadyFrom, performance.now()]);
    await load.stop();
    expect((await checkReadiness('after')).status).toBe(204);

    const outcomes = load.outcomes;
    const within = (outcome: Outcome, [from, to]: [number, number]) =>
      outcome.start >= from && outcome.end <= to;
    const inSteady = outcomes.filter((o) => mustSucceed.some((w) => within(o, w)));
    const inOutage = outcomes.filter((o) => mustBeUnavailable.some((w) => within(o, w)));
    const slowest = (list: Outcome[]) => Math.round(Math.max(0, ...list.map((o) => o.ms)));
    console.log(
      `postgres-outage: ${outcomes.length} requests (${JSON.stringify(tally(outcomes))}); ` +
        `${inSteady.length} in steady windows, slowest ${slowest(inSteady)} ms; ` +
        `${inOutage.length} while the database was down, slowest ${slowest(inOutage)} ms; ` +
        `outages ${JSON.stringify(outages)}; ` +
        `acknowledged: ${load.users.length} users, ${load.follows.length} follows; ` +
        `readiness ${JSON.stringify(readiness.map((r) => [r.at, r.status, Math.round(r.ms)]))}`,
    );

    const serviceErrors = service.logs.filter((line) => (line.level ?? 0) >= 50);
    if (serviceErrors.length > 0) {
      console.warn(
        `postgres-outage: ${serviceErrors.length} error logs, e.g.\n${serviceErrors
          .slice(0, 5)
          .map((line) => JSON.stringify(line).slice(0, 1500))
          .join('\n')}`,
      );
    }
    // Never a connection error, a timeout, or a 500; every answer well under the request timeout.
    const broken = outcomes.filter((o) => o.status === null || o.status === 500);
    expect(tally(broken)).toEqual({});
    expect(outcomes.filter((o) => o.ms >= FAIL_FAST_MS).map(describeOutcome)).toEqual([]);
    // Anything else is a success or the contract's 503.
    const neither = outcomes.filter((o) => !isSuccess(o) && !isServiceUnavailable(o));
    expect(tally(neither)).toEqual({});
    // The load went on through each outage, and all of it was refused with 503.
    expect(inOutage.length).toBeGreaterThanOrEqual(OUTAGES * 10);
    expect(tally(inOutage.filter((o) => !isServiceUnavailable(o)))).toEqual({});
    expect(inOutage.some((o) => o.face === 'graphql')).toBe(true);
    // Before, between and after the outages, everything succeeded.
    expect(inSteady.length).toBeGreaterThan(20);
    expect(tally(inSteady.filter((o) => !isSuccess(o)))).toEqual({});
    // The same process all along.
    expect(service.child.exitCode).toBeNull();
    expect(readiness.filter((r) => r.ms >= FAIL_FAST_MS)).toEqual([]);

    // Every acknowledged write is in the database.
    const client = new Client({ connectionString: server.url('meetings') });
    await client.connect();
    try {
      expect(await lostWrites(client, load)).toEqual({ users: [], follows: [] });
      expect(load.users.length).toBeGreaterThan(OUTAGES * 3);
      expect(load.follows.length).toBeGreaterThan(OUTAGES * 3);
    } finally {
      await client.end();
    }
  }, 120_000);

  it('frees the Idempotency-Keys of writes the outage cut short within seconds of its end: every retry then succeeds, written once', async () => {
    if (setupProblem || !pg || !service) {
      return;
    }
    const server = pg;
    const running = service;
    const url = running.url;
    const tag = `k${randomBytes(3).toString('hex')}`;
    const owner = await registerAndLogin(url, `${tag}o`);
    const guest = await registerAndLogin(url, `${tag}g`);
    // Writers each send keyed meeting creations one after another, each retried (same key, same
    // body) on 503 and 409 until created; the database stops under them for 3 s.
    const WRITERS = 20;
    const created: Array<{ key: string; title: string; firstSent: number; answered: number }> = [];
    const inUse = new Set<string>();
    let writing = true;
    const writer = async (w: number) => {
      for (let n = 0; writing; n += 1) {
        const key = `${tag}-${w}-${n}`;
        const title = `Keyed ${key}`;
        // The same request each time (its start time too), as a retry is.
        const body = meetingBody([guest.id], { title });
        const firstSent = performance.now();
        for (;;) {
          const answer = await call(url, 'POST', '/api/v1/meeting/create', {
            token: owner.token,
            idempotencyKey: key,
            json: body,
            timeoutMs: 15_000,
          });
          if (answer.status === 201) {
            created.push({ key, title, firstSent, answered: performance.now() });
            break;
          }
          if (![503, 409].includes(answer.status ?? 0)) {
            throw new Error(`${key}: ${answer.status} ${JSON.stringify(answer.body)}`);
          }
          if (answer.status === 409) {
            inUse.add(key);
          }
          await sleep(100);
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    await sleep(1_000);
    // Writes held mid-way when the database stops (their keys claimed, their meeting not yet
    // written): the meetings table locked until then.
    const locker = new Client({ connectionString: server.url('meetings') });
    locker.on('error', () => undefined); // the stop ends its session
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table meetings in access exclusive mode');
    let held = 0;
    for (let tries = 0; held < 3 && tries < 100; tries += 1) {
      await sleep(20);
      held = await waitingRequestStatements(locker);
    }
    expect(held).toBeGreaterThanOrEqual(3);
    const notKept = () =>
      running.logs.filter((line) => line.msg === 'idempotency key: answer not kept').length;
    const notKeptBefore = notKept();
    await server.stopImmediate();
    await locker.end().catch(() => undefined);
    await sleep(3_000);
    // Timed from the restart's start: nothing can be written before it, however long the start
    // itself takes (under load pg_ctl may return after the service has written again).
    const back = performance.now();
    await server.start();
    await sleep(6_000);
    writing = false;
    await Promise.all(writers);

    // Every write under way when the database came back was answered within 5 s of its return.
    const pending = created.filter((write) => write.firstSent < back && write.answered > back);
    const slowest = Math.max(0, ...pending.map((write) => write.answered - back));
    console.log(
      `postgres-outage keyed writes: ${created.length} created, ${pending.length} under way at ` +
        `the return, the last answered ${Math.round(slowest)} ms after it; ` +
        `${inUse.size} keys met in use (a cut-short claim) before being answered; ` +
        `${notKept() - notKeptBefore} answers not kept by the service`,
    );
    // The outage caught writes mid-way: their claims were cut short, the answer not kept (a
    // retry meets such a key in use until the service lets it go, at its next try after the
    // return: whether one comes in between is a race, so the service's own account is counted).
    expect(pending.length).toBeGreaterThanOrEqual(held);
    expect(notKept() - notKeptBefore).toBeGreaterThanOrEqual(held);
    expect(slowest).toBeLessThan(5_000);
    // Each written once.
    const client = new Client({ connectionString: server.url('meetings') });
    await client.connect();
    try {
      const { rows } = await client.query<{ title: string; n: number }>(
        `select title, count(*)::int as n from meetings where title like $1 group by title`,
        [`Keyed ${tag}-%`],
      );
      expect(rows.filter((row) => row.n !== 1)).toEqual([]);
      expect(rows.map((row) => row.title).sort()).toEqual(
        created.map((write) => write.title).sort(),
      );
    } finally {
      await client.end();
    }
  }, 60_000);

  it('wrote every line of its outages as one JSON object (the job worker and Node included)', () => {
    if (setupProblem || !service) {
      return;
    }
    // Under load, through three stops of the database, nothing written as plain text: no
    // `Trace:` of a job worker, no DeprecationWarning, no stack outside a field.
    expect(service.notJson).toEqual([]);
    expect(service.logs.length).toBeGreaterThan(0);
  });
});
