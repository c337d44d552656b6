import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../helpers/test-database';
import { lostWrites } from './support/acknowledged';
import { buildService, type ServiceBuild } from './support/build';
import { describeOutcome, isServiceUnavailable, isSuccess, MixedLoad, tally } from './support/load';
import { type ServiceProcess, serviceEnv, startService } from './support/service';

/**
 * The service's database connections are killed (pg_terminate_backend) every 2.5 s under load
 * from 50 clients: whatever statement or transaction a connection dies in, the request fails
 * with the contract's 503 (never a 500), nothing acknowledged is lost, and no log line of the
 * whole run carries SQL, a password hash, a token or an e-mail address.
 *
 * Runs in the postgres jest project, on a database of its own on the project's server.
 */
const CLIENTS = 50;
const KILL_EVERY_MS = 2_500;
const KILLS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const suite = testDatabaseKind === 'postgres' ? describe : describe.skip;

suite('database connections terminated under load', () => {
  let database: TestDatabase | undefined;
  let build: ServiceBuild | undefined;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.config.kind !== 'postgres') {
      throw new Error('expected a PostgreSQL test database');
    }
    build = buildService();
    service = await startService(
      build.main,
      serviceEnv({ DATABASE_URL: database.config.url, DB_POOL_SIZE: '5', LOG_LEVEL: 'info' }),
    );
  }, 90_000);

  afterAll(async () => {
    await service?.kill();
    build?.remove();
    await database?.drop();
  }, 60_000);

  it('answers 503 for every failed request, loses nothing acknowledged, logs no secret', async () => {
    if (!service || database?.config.kind !== 'postgres') {
      throw new Error('set-up failed');
    }
    const load = new MixedLoad(service.url, {
      clients: CLIENTS,
      tag: `t${randomBytes(3).toString('hex')}`,
      timeoutMs: 15_000,
    });
    await load.setup();
    const tokens = load.actorUsers.map((actor) => actor.token);
    const admin = new Client({ connectionString: database.config.url });
    await admin.connect();
    let killed = 0;
    try {
      load.start();
      for (let kill = 0; kill < KILLS; kill += 1) {
        await sleep(KILL_EVERY_MS);
        const result = await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid()`,
        );
        killed += result.rowCount ?? 0;
      }
      await sleep(1_000);
      await load.stop();

      const outcomes = load.outcomes;
      const failed = outcomes.filter((o) => !isSuccess(o));
      console.log(
        `terminated-connections: ${outcomes.length} requests, ${killed} connections killed; ` +
          `${JSON.stringify(tally(failed))}`,
      );
      expect(killed).toBeGreaterThan(0);
      expect(outcomes.length).toBeGreaterThan(CLIENTS * 2);
      // Every failure is the contract's 503; never a 500, a hang or a dropped connection.
      expect(failed.filter((o) => !isServiceUnavailable(o)).map(describeOutcome)).toEqual([]);

      // Every acknowledged write is in the database.
      expect(await lostWrites(admin, load)).toEqual({ users: [], follows: [] });
    } finally {
      await load.stop();
      await admin.end();
    }

    // No log line of the run carries SQL, a hash, a token or an e-mail address.
    const logText = service.logs.map((line) => JSON.stringify(line));
    // One request line per request at least: the grep below read the whole run.
    expect(logText.length).toBeGreaterThanOrEqual(load.outcomes.length);
    const leaks = logText.filter(
      (line) =>
        /\$argon2|insert into|select .* from|@example\.test/i.test(line) ||
        tokens.some((token) => line.includes(token.split('.')[2] ?? token)),
    );
    expect(leaks.slice(0, 5)).toEqual([]);
  }, 120_000);
});
