import { RestClient } from '../helpers/rest-client';
import { createMeetingViaRest } from '../rest/rest-fixtures';
import type { SeededUser } from '../helpers/seed';
import {
  postgresTools,
  startStreamingPair,
  type StreamingPair,
} from '../helpers/streaming-replica';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { testDatabaseKind } from '../helpers/test-database';

/**
 * Reads spread over a real streaming replica (PostgreSQL's physical replication) that replays
 * APPLY_DELAY_MS behind its primary, so that a read served by it would miss a write just made:
 * - a caller reads its own writes every time, through REST without any header (the service
 *   remembers the caller's last write position) and through GraphQL with `X-Read-After`;
 * - other reads are served by the replica (db_reads_total);
 * - a replica stopped costs no 5xx: reads go to the primary, and back to the replica once it is
 *   up again.
 * The pair of servers is this file's own: it runs once, in the embedded project.
 */

const APPLY_DELAY_MS = 2000;
const tools = postgresTools();
const runs = testDatabaseKind === 'embedded' && !('missing' in tools);
if (testDatabaseKind === 'embedded' && 'missing' in tools) {
  console.warn(`read replica tests skipped: ${tools.missing}`);
}

const NEW_MEETING =
  'mutation ($input: CreateMeetingInput!) { createMeeting(input: $input) { meeting { id title } } }';
const MEETING = 'query ($id: UUID!) { meeting(meetingId: $id) { id title } }';

/** Reads by where they went, from the service's metrics. */
async function readsServed(t: TestApp): Promise<{ primary: number; replica: number }> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const count = (target: string) =>
    Number(new RegExp(`^db_reads_total\\{target="${target}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { primary: count('primary'), replica: count('replica') };
}

async function graphql(
  t: TestApp,
  query: string,
  variables: Record<string, unknown>,
  token: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; readAfter: string | null; body: Record<string, unknown> }> {
  const response = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    readAfter: response.headers.get('x-read-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

/**
 * Waits until `app` reads from the replica: an instance uses it once the replica has replayed
 * what the primary had written when the instance started (the schema, the users), some
 * APPLY_DELAY_MS after.
 */
async function untilReplicaServes(app: TestApp, token: string): Promise<void> {
  const start = await readsServed(app);
  const rest = new RestClient(app.url);
  for (let i = 0; i < 100 && (await readsServed(app)).replica === start.replica; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await rest.get('/follow/following', { token })).status).toBe(200);
  }
  expect((await readsServed(app)).replica).toBeGreaterThan(start.replica);
}

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

(runs ? describe : describe.skip)('read replicas', () => {
  let pair: StreamingPair;
  let t: TestApp;
  let rest: RestClient;
  let owner: SeededUser;
  let guest: SeededUser;

  beforeAll(async () => {
    pair = await startStreamingPair(APPLY_DELAY_MS);
    t = await startTestApp(
      {},
      {
        database: {
          kind: 'postgres',
          url: pair.primaryUrl,
          poolSize: 5,
          replicas: { urls: [pair.replicaUrl], maxLagMs: 5000 },
        },
      },
    );
    rest = new RestClient(t.url);
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
    await untilReplicaServes(t, guest.token);
  });

  afterAll(async () => {
    await t?.close();
    pair?.close();
  });

  it('lets a REST caller read its own writes at once, without any header', async () => {
    for (let i = 0; i < 8; i += 1) {
      const created = await createMeetingViaRest(rest, owner.token, [guest.id], {
        title: `Replica check ${i}`,
      });
      const read = await rest.get<{ id: string; title: string }>(`/meeting/${created.id}`, {
        token: owner.token,
      });
      expect(read.status).toBe(200);
      expect(read.body.title).toBe(`Replica check ${i}`);
    }
  });

  it('answers a GraphQL write with its position, which a reader sends back to see it', async () => {
    for (let i = 0; i < 5; i += 1) {
      const written = await graphql(
        t,
        NEW_MEETING,
        {
          input: {
            meeting: { title: `Position check ${i}`, startTime: inHours(30), location: 'Room 12' },
            participants: [{ userId: guest.id }],
          },
        },
        owner.token,
      );
      const { meeting } = (written.body['data'] as { createMeeting: { meeting: { id: string } } })
        .createMeeting;
      expect(written.readAfter).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      expect(written.body['extensions']).toEqual({
        readAfter: written.readAfter,
        cost: { requested: 12, actual: 12 },
      });
      // The guest wrote nothing: only the position sent back makes the read wait for this write.
      const read = await graphql(t, MEETING, { id: meeting.id }, guest.token, {
        'x-read-after': written.readAfter as string,
      });
      expect(read.status).toBe(200);
      expect(read.body['data']).toEqual({
        meeting: { id: meeting.id, title: `Position check ${i}` },
      });
    }
  });

  it('lets a caller read its own writes on another instance, the positions kept on the primary or in Redis', async () => {
    const redisUrl = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
    const another = (env: Record<string, string>) =>
      startTestApp(env, {
        database: {
          kind: 'postgres',
          url: pair.primaryUrl,
          poolSize: 3,
          replicas: { urls: [pair.replicaUrl], maxLagMs: 5000 },
        },
      });
    const plain = await another({});
    const [sharing, alsoSharing] = [
      await another({ REDIS_URL: redisUrl }),
      await another({ REDIS_URL: redisUrl }),
    ];
    try {
      await untilReplicaServes(plain, guest.token);
      await untilReplicaServes(alsoSharing, guest.token);
      for (const [writer, reader] of [
        [t, plain],
        [sharing, alsoSharing],
      ] as const) {
        for (let i = 0; i < 4; i += 1) {
          const created = await createMeetingViaRest(
            new RestClient(writer.url),
            owner.token,
            [guest.id],
            { title: `Elsewhere ${i}` },
          );
          const read = await new RestClient(reader.url).get<{ title: string }>(
            `/meeting/${created.id}`,
            { token: owner.token },
          );
          expect({ status: read.status, body: read.body }).toMatchObject({
            status: 200,
            body: { title: `Elsewhere ${i}` },
          });
        }
      }
    } finally {
      await Promise.all([plain.close(), sharing.close(), alsoSharing.close()]);
    }
  });

  it('serves other reads from the replica', async () => {
    const meeting = await createMeetingViaRest(rest, owner.token, [guest.id], {
      title: 'Seen from afar',
    });
    // The replica replays the write APPLY_DELAY_MS later; the guest, who wrote nothing, is
    // served by it once it has.
    await new Promise((resolve) => setTimeout(resolve, APPLY_DELAY_MS + 1500));
    const before = await readsServed(t);
    for (let i = 0; i < 5; i += 1) {
      const read = await rest.get<{ title: string }>(`/meeting/${meeting.id}`, {
        token: guest.token,
      });
      expect(read.status).toBe(200);
      expect(read.body.title).toBe('Seen from afar');
    }
    const after = await readsServed(t);
    expect(after.replica - before.replica).toBeGreaterThanOrEqual(5);
  });

  it('answers every read while the replica is down, and uses it again once it is back', async () => {
    const meeting = await createMeetingViaRest(rest, owner.token, [guest.id], {
      title: 'Replica outage',
    });
    pair.stopReplica();
    const before = await readsServed(t);
    const deadline = Date.now() + 3000;
    let reads = 0;
    while (Date.now() < deadline) {
      const read = await rest.get<{ title: string }>(`/meeting/${meeting.id}`, {
        token: guest.token,
      });
      expect(read.status).toBe(200);
      expect(read.body.title).toBe('Replica outage');
      reads += 1;
    }
    const during = await readsServed(t);
    expect(during.primary - before.primary).toBeGreaterThanOrEqual(reads);
    // Readiness detail shows it skipped, and why, but not where it is: the instance stays ready.
    const detail = await fetch(`${t.url}/health/readiness?detail`);
    expect(detail.status).toBe(200);
    expect(await detail.json()).toMatchObject({
      ready: true,
      replicas: [{ replica: 1, healthy: false, problem: 'unreachable' }],
    });
    pair.startReplica();
    let back = false;
    for (let i = 0; i < 100 && !back; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const read = await rest.get<{ title: string }>(`/meeting/${meeting.id}`, {
        token: guest.token,
      });
      expect(read.status).toBe(200);
      back = (await readsServed(t)).replica > during.replica;
    }
    expect(back).toBe(true);
  });
});
