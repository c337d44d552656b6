import type { ServerResponse } from 'node:http';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/test-database';
import { attemptsOf, createEndpoint, Receiver } from '../webhooks/receiver';
import { DEAD_AFTER_MS } from '../../src/platform/jobs/dead-workers';
import { useEmbeddedFixture } from './support/embedded-fixture';
import type { ServiceProcess } from './support/service';

/**
 * An instance killed while it runs a job (kill -9: nothing released) does not take the job down
 * with it: the job queue's locks of its workers, no longer seen, are freed by another instance
 * within seconds, which runs the job. graphile-worker alone frees such locks after four hours
 * (the fleet trial saw every webhook stop until then).
 *
 * Instance A runs as a child process (the compiled sources) and is killed while it delivers a
 * webhook to a receiver that does not answer; instance B, in this process, delivers it. Runs
 * once, in the postgres jest project (the job queue is the same on the embedded server).
 */

const UPDATE = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

const suite = testDatabaseKind === 'postgres' ? describe : describe.skip;

suite('a job of an instance killed while running it', () => {
  const fixture = useEmbeddedFixture('dead-instance-jobs');
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

  const instance = async (): Promise<TestApp> => {
    const app = await startTestApp(ENV, { database: database.config });
    apps.push(app);
    return app;
  };

  it('is run by another instance within seconds of the kill, once', async () => {
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

    if (database.config.kind !== 'postgres') {
      throw new Error('a test database is a PostgreSQL URL');
    }
    const a: ServiceProcess = await fixture.start({
      ...ENV,
      DATABASE_URL: database.config.url,
    });
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
      `dead-instance-jobs: delivered by B ${seconds.toFixed(1)} s after A was killed ` +
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
});
