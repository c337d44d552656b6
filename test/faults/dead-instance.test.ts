import type { ServerResponse } from 'node:http';
import { Client } from 'pg';
import { waitingRequestStatements } from '../helpers/lock-waits';
import { meetingBody } from '../rest/rest-fixtures';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/test-database';
import { attemptsOf, createEndpoint, Receiver } from '../webhooks/receiver';
import { DEAD_AFTER_MS } from '../../src/platform/sql/heartbeats';
import { useEmbeddedFixture } from './support/embedded-fixture';
import type { ServiceProcess } from './support/service';

/**
 * An instance killed while it works (kill -9: nothing released) does not take work down with it.
 * Every instance says every few seconds that it and its job workers are alive; what a dead one
 * held is taken over by another within seconds:
 * - a job it was running (graphile-worker alone frees such a lock after four hours: the fleet
 *   trial saw every webhook stop until then);
 * - the Idempotency-Key of a write it was serving (until now held for twice the request timeout:
 *   the client's retries met IDEMPOTENCY_KEY_IN_USE for a minute).
 *
 * Instance A runs as a child process (the compiled sources) and is killed mid-work; instance B,
 * in this process, takes over. Runs once, in the embedded jest project: the suite's embedded
 * server allows the connections of a third instance beside the other test files' (the machine's
 * PostgreSQL, shared by two projects, ran out of them: 'too many clients').
 */

const UPDATE = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

const suite = testDatabaseKind === 'embedded' ? describe : describe.skip;

suite('work of an instance killed mid-way', () => {
  const fixture = useEmbeddedFixture('dead-instance');
  let database: TestDatabase;
  const apps: TestApp[] = [];
  let receiver: Receiver | null = null;
  const hung: ServerResponse[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of apps) {
      await app.close();
    }
    hung.forEach((response) => response.destroy());
    await receiver?.close();
    await database?.drop();
  });

  /** Instance A, a child process on the test database, killed by the test. */
  const childInstance = (env: Record<string, string> = {}): Promise<ServiceProcess> => {
    if (database.config.kind !== 'postgres') {
      throw new Error('a test database is a PostgreSQL URL');
    }
    return fixture.start({ ...ENV, DATABASE_URL: database.config.url, DB_POOL_SIZE: '3', ...env });
  };

  const instance = async (): Promise<TestApp> => {
    const app = await startTestApp(ENV, { database: database.config });
    apps.push(app);
    return app;
  };

  it('a job it was running is run by another instance within seconds of the kill, once', async () => {
    // The first request is never answered (A is running it when killed); the next ones are.
    receiver = await Receiver.start((n, response) => {
      if (n === 0) {
        hung.push(response);
      } else {
        response.writeHead(204).end();
      }
    });
    // The endpoint and the meeting made on an instance that then stops as usual.
    const setup = await instance();
    const [owner, guest] = (await setup.seed.users(2)) as [SeededUser, SeededUser];
    const { endpoint } = await createEndpoint(setup, owner, receiver.url, ['meeting.updated']);
    const meeting = await setup.seed.meeting(owner).inviting(guest).create();
    await setup.instance.close();

    const a = await childInstance();
    const edited = await fetch(`${a.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
      body: JSON.stringify({
        query: UPDATE,
        variables: { input: { meetingId: meeting.id, title: 'Edited on A' } },
      }),
    });
    expect(edited.status).toBe(200);
    // A's worker is delivering (the receiver holds the request): A dies.
    await receiver.waitFor(1, 20_000);
    expect(receiver.received).toHaveLength(1);
    await a.kill();
    const killedAt = performance.now();

    const b = await instance();
    const received = await receiver.waitFor(2, 30_000);
    const seconds = (performance.now() - killedAt) / 1000;
    console.log(
      `dead-instance: a job delivered by B ${seconds.toFixed(1)} s after A was killed ` +
        `(a worker unseen for ${DEAD_AFTER_MS / 1000} s is dead)`,
    );
    expect(received).toHaveLength(2);
    expect(seconds).toBeLessThan(30);
    // The same event both times, and no third request: delivered once.
    expect(received[1]?.body.data.cursor).toBe(received[0]?.body.data.cursor);
    await receiver.settled();
    expect(receiver.received).toHaveLength(2);
    const attempts = await attemptsOf(b, owner, endpoint.id);
    expect(attempts.filter((attempt) => attempt.succeeded)).toHaveLength(1);
  }, 90_000);

  it('the Idempotency-Key of a write it was serving is taken over by a retry within seconds, and written once', async () => {
    const setup = await instance();
    const [owner, guest] = (await setup.seed.users(2)) as [SeededUser, SeededUser];
    const title = `Keyed on A ${Date.now()}`;
    const body = JSON.stringify(meetingBody([guest.id], { title }));
    const send = (url: string) =>
      fetch(`${url}/api/v1/meeting/create`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${owner.token}`,
          'idempotency-key': 'create-on-a',
        },
        body,
      });
    // A's write waits for a lock the test holds, its key claimed, when A dies.
    const a = await childInstance({ REQUEST_TIMEOUT_MS: '60000' });
    const locker = new Client({ connectionString: setup.instance.database.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table meetings in access exclusive mode');
      const onA = send(a.url).catch(() => null);
      let waiting = 0;
      for (let tries = 0; waiting === 0 && tries < 100; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        waiting = await waitingRequestStatements(locker);
      }
      expect(waiting).toBeGreaterThan(0);
      await a.kill();
      expect(await onA).toBeNull();
    } finally {
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
    }
    const killedAt = performance.now();

    // The client retries on B every half second until it is answered.
    const statuses: number[] = [];
    let answer: Response | null = null;
    while (performance.now() - killedAt < 40_000) {
      answer = await send(setup.url);
      statuses.push(answer.status);
      if (answer.status !== 409) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const seconds = (performance.now() - killedAt) / 1000;
    console.log(
      `dead-instance: a keyed write retried on B answered ${answer?.status} ` +
        `${seconds.toFixed(1)} s after A was killed (${statuses.length - 1} × 409 before)`,
    );
    expect(answer?.status).toBe(201);
    expect(seconds).toBeLessThan(DEAD_AFTER_MS / 1000 + 8);
    // Written once: A's transaction died with it.
    const { rows } = await setup.instance.database.pool.pg.query<{ n: number }>(
      'select count(*)::int as n from meetings where title = $1',
      [title],
    );
    expect(rows[0]?.n).toBe(1);
    // And the retry after the answer is that answer.
    const again = await send(setup.url);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  }, 90_000);
});
