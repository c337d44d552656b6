import { Client } from 'pg';
import { buildService, type ServiceBuild } from '../faults/support/build';
import { registerAndLogin } from '../faults/support/load';
import { freePort, serviceEnv } from '../faults/support/service';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../helpers/test-database';
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process';

/**
 * The real service, as a process, with Redis unreachable for several seconds and a request
 * answered 503: every line it writes, on stdout and stderr, is a JSON log line; Redis going
 * down is one line, however often the client retries; the 503 is one line, with its cause and
 * without a stack.
 */
const REQUEST_TIMEOUT_MS = 1000;
const REDIS_DOWN_MS = 6000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A database server of the project's own: once, in the postgres project.
const suite = testDatabaseKind === 'postgres' ? describe : describe.skip;

suite('logs of a failing dependency', () => {
  let build: ServiceBuild;
  let database: TestDatabase;
  let service: ServiceProcess | undefined;
  const lines: Array<{ stream: string; text: string }> = [];

  beforeAll(async () => {
    build = buildService();
    database = await createTestDatabase();
    if (database.config.kind !== 'postgres') {
      throw new Error('a PostgreSQL test database was expected');
    }
    // A port nothing listens on: every connection attempt of the Redis client is refused.
    const closedPort = await freePort();
    service = await startServiceProcess({
      script: build.main,
      env: serviceEnv({
        DATABASE_URL: database.config.url,
        REDIS_URL: `redis://127.0.0.1:${closedPort}`,
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        LOG_LEVEL: 'info',
        METRICS: 'false',
      }),
      ready: { path: '/health/liveness', withinMs: 30_000, everyMs: 100, attemptMs: 1_000 },
      onLine: (text, stream) => lines.push({ stream, text }),
    });
  }, 60_000);

  afterAll(async () => {
    await service?.kill();
    build?.remove();
    await database?.drop();
  }, 30_000);

  it('writes JSON only, Redis down once, and a 503 as one line without a stack', async () => {
    const url = (service as ServiceProcess).url;
    // Signing up and in counts attempts in Redis (refused: the limiter falls back to memory).
    const user = await registerAndLogin(url, 'logs');
    await sleep(REDIS_DOWN_MS);

    // A request behind a locked table: answered 503 at its deadline.
    const locker = new Client({ connectionString: (database.config as { url: string }).url });
    await locker.connect();
    let blocked: Response;
    try {
      await locker.query('begin');
      await locker.query('lock table users in access exclusive mode');
      blocked = await fetch(`${url}/api/v1/user/me`, {
        headers: { authorization: `Bearer ${user.token}`, 'x-request-id': 'blocked-request' },
      });
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    expect(blocked.status).toBe(503);
    await sleep(200);

    const notJson = lines.filter(({ text }) => {
      try {
        return typeof (JSON.parse(text) as { level?: unknown }).level !== 'number';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    const logged = lines.map(({ text }) => JSON.parse(text) as Record<string, unknown>);
    const redisDown = logged.filter(
      (line) => line['msg'] === 'dependency down' && line['dependency'] === 'redis',
    );
    expect(redisDown).toHaveLength(1);
    expect(redisDown[0]?.['cause']).toMatchObject({ code: 'ECONNREFUSED' });

    const unavailable = logged.filter((line) => line['msg'] === 'database unavailable');
    expect(unavailable).toHaveLength(1);
    expect(unavailable[0]).toMatchObject({
      reqId: 'blocked-request',
      cause: { type: 'DeadlineExceededError' },
    });
    const text = JSON.stringify(unavailable[0]);
    expect(text).not.toContain('stack');
    expect(text.length).toBeLessThan(600);
    console.log(
      `dependency-logs: ${lines.length} lines in ${REDIS_DOWN_MS} ms with Redis down, all JSON; ` +
        `the 503's line (${text.length} bytes): ${text}`,
    );
  }, 60_000);
});
