import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { compareCursors } from '../../src/platform/live/change-log';
import type { SeededUser } from '../helpers/seed';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/test-database';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { attemptsOf, createEndpoint, eventually, Receiver } from './receiver';

/*
 * Webhooks across instances and restarts (issue 28): two instances on one database make and
 * send each event's delivery once; a restart between two attempts of a delivery, or between a
 * change and its dispatch, loses nothing; and the embedded database the service starts itself
 * runs the job queue as a PostgreSQL server does.
 */

const UPDATE_MEETING = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

describe('webhooks on two instances and across a restart', () => {
  let database: TestDatabase;
  const apps: TestApp[] = [];
  const receivers: Receiver[] = [];

  /** An instance on the shared database (closing it leaves the database in place). */
  const instance = async (env: Record<string, string> = {}) => {
    const app = await startTestApp({ ...ENV, ...env }, { database: database.config });
    apps.push(app);
    return app;
  };
  const receiver = async (...args: Parameters<typeof Receiver.start>) => {
    const started = await Receiver.start(...args);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of apps) {
      await app.instance.close();
    }
    await Promise.all(receivers.map((r) => r.close()));
    await database?.drop();
  });

  it('sends each event once when two instances share the database, in commit order (one lane)', async () => {
    // One lane per endpoint: its attempts one at a time across both instances.
    const oneLane = { WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1' };
    const a = await instance(oneLane);
    const b = await instance(oneLane);
    const [owner, guest] = (await a.seed.users(2)) as [SeededUser, SeededUser];
    const hook = await receiver();
    const { endpoint, secret } = await createEndpoint(a, owner, hook.url, ['meeting.updated']);
    const meeting = await a.seed.meeting(owner).inviting(guest).create();
    // Edits through both instances, some at once.
    for (let round = 0; round < 5; round += 1) {
      await Promise.all(
        [a, b].map((app, i) =>
          app.gql.data(
            UPDATE_MEETING,
            {
              input: { meetingId: meeting.id, title: `Round ${round} via ${i === 0 ? 'a' : 'b'}` },
            },
            owner.token,
          ),
        ),
      );
    }
    await hook.waitFor(10);
    const got = await hook.settled();
    expect(got).toHaveLength(10);
    const ids = got.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids).size).toBe(10);
    const cursors = got.map((r) => r.body.data.cursor);
    expect(new Set(cursors).size).toBe(10);
    expect([...cursors].sort(compareCursors)).toEqual(cursors);
    for (const request of got) {
      expect(() =>
        new Webhook(secret).verify(request.raw, request.headers as Record<string, string>),
      ).not.toThrow();
    }
    const attempts = await attemptsOf(a, owner, endpoint.id);
    expect(attempts).toHaveLength(10);
    expect(attempts.every((attempt) => attempt.number === 1 && attempt.succeeded)).toBe(true);
    await b.instance.close();
    await a.instance.close();
  });

  it('loses nothing to a restart between two attempts, nor between a change and its dispatch', async () => {
    const first = await instance({ WEBHOOK_RETRY_SCHEDULE: '2' });
    const [owner, guest] = (await first.seed.users(2)) as [SeededUser, SeededUser];
    const hook = await receiver((n, response) => response.writeHead(n === 0 ? 500 : 200).end());
    const { endpoint } = await createEndpoint(first, owner, hook.url, ['meeting.updated']);
    const meeting = await first.seed.meeting(owner).inviting(guest).create();
    await first.gql.data(
      UPDATE_MEETING,
      { input: { meetingId: meeting.id, title: 'Before the restart' } },
      owner.token,
    );
    const [failed] = await hook.waitFor(1);
    expect(failed?.body.data.meeting['title']).toBe('Before the restart');
    // The retry is due in about two seconds; a second change is made, and the instance stops at
    // once (gracefully, as on SIGTERM).
    await first.gql.data(
      UPDATE_MEETING,
      { input: { meetingId: meeting.id, title: 'Right before it' } },
      owner.token,
    );
    await first.instance.close();

    const second = await instance({ WEBHOOK_RETRY_SCHEDULE: '2' });
    // The failed attempt, its retry, and the second change's delivery (before or after).
    const got = await hook.waitFor(3, 20_000);
    const byId = new Map<string, string[]>();
    for (const request of got) {
      const id = String(request.headers['webhook-id']);
      byId.set(id, [...(byId.get(id) ?? []), String(request.body.data.meeting['title'])]);
    }
    // The first event twice (failed, then retried by the new instance), the second once.
    expect([...byId.values()].map((titles) => titles.length).sort()).toEqual([1, 2]);
    expect(byId.get(String(failed?.headers['webhook-id']))).toHaveLength(2);
    const attempts = await eventually(
      () => attemptsOf(second, owner, endpoint.id),
      (list) => list.filter((attempt) => attempt.succeeded).length === 2,
    );
    expect(attempts.map((attempt) => [attempt.number, attempt.statusCode]).sort()).toEqual([
      [1, 200],
      [1, 500],
      [2, 200],
    ]);
    await second.instance.close();
  });
});

(testDatabaseKind === 'embedded' ? describe : describe.skip)(
  'webhooks on the embedded database the service starts',
  () => {
    it('queues and sends a signed delivery', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'meetings-webhooks-'));
      const hook = await Receiver.start();
      try {
        const t = await startTestApp(ENV, { database: { kind: 'embedded', dataDir, poolSize: 5 } });
        try {
          expect(t.instance.database.kind).toBe('embedded');
          const [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
          const { secret } = await createEndpoint(t, owner, hook.url, [
            'meeting.participant_added',
          ]);
          const meeting = await t.seed.meeting(owner).inviting(guest).create();
          const [got] = await hook.waitFor(1);
          expect(
            new Webhook(secret).verify(got?.raw ?? '', got?.headers as Record<string, string>),
          ).toMatchObject({ type: 'meeting.participant_added', data: { meetingId: meeting.id } });
        } finally {
          await t.close();
        }
      } finally {
        await hook.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  },
);
