import type { ServerResponse } from 'node:http';
import { laneOf } from '../../src/modules/webhook/webhook.jobs';
import { compareCursors } from '../../src/platform/live/change-log';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createEndpoint, type Received, Receiver } from './receiver';

/*
 * An endpoint's attempts in lanes (issue 39): up to WEBHOOK_CONCURRENCY_PER_ENDPOINT of them
 * under way at once, never more, each lane's in commit order; with one lane, one at a time. A
 * receiver that hangs holds its endpoint's lanes only: another endpoint's events go on promptly
 * meanwhile. Receivers are real HTTP servers on 127.0.0.1 that hold their requests.
 */

const UPDATE_MEETING = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

/** A receiver that answers each request after `holdMs`, counting the most it held at once. */
async function holdingReceiver(holdMs: number): Promise<{ hook: Receiver; most: () => number }> {
  let held = 0;
  let most = 0;
  const hook = await Receiver.start((_n, response) => {
    held += 1;
    most = Math.max(most, held);
    setTimeout(() => {
      held -= 1;
      response.writeHead(204).end();
    }, holdMs);
  });
  return { hook, most: () => most };
}

/** Whether each lane's receipts came in commit order. */
function inOrderPerLane(got: readonly Received[], lanes: number): boolean {
  const byLane = new Map<number, string[]>();
  for (const { body } of got) {
    const lane = laneOf(body.data.cursor, lanes);
    byLane.set(lane, [...(byLane.get(lane) ?? []), body.data.cursor]);
  }
  return [...byLane.values()].every((cursors) =>
    cursors.every((cursor, i) => i === 0 || compareCursors(cursors[i - 1] as string, cursor) < 0),
  );
}

describe('webhook attempts in lanes', () => {
  let t: TestApp;
  let owner: SeededUser;
  let guest: SeededUser;
  const receivers: Receiver[] = [];

  /** `count` edits of a meeting of `by`'s, one after another: `label 1`, `label 2`, … */
  const renames = async (
    app: TestApp,
    by: SeededUser,
    meetingId: string,
    count: number,
    label: string,
  ) => {
    for (let i = 1; i <= count; i += 1) {
      await app.gql.data(
        UPDATE_MEETING,
        { input: { meetingId, title: `${label} ${i}` } },
        by.token,
      );
    }
  };

  beforeAll(async () => {
    // The default: 4 lanes per endpoint.
    t = await startTestApp(ENV);
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('has up to WEBHOOK_CONCURRENCY_PER_ENDPOINT (4) attempts of one endpoint under way at once, never more, each lane in commit order', async () => {
    const { hook, most } = await holdingReceiver(1_000);
    receivers.push(hook);
    await createEndpoint(t, owner, hook.url, ['meeting.updated']);
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    await renames(t, owner, meeting.id, 8, 'Four lanes');
    const got = await hook.waitFor(8);
    expect(got).toHaveLength(8);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(8);
    expect(most()).toBe(4);
    expect(inOrderPerLane(got, 4)).toBe(true);
  });

  it('has one attempt of an endpoint under way at a time with WEBHOOK_CONCURRENCY_PER_ENDPOINT=1, in commit order', async () => {
    const one = await startTestApp({ ...ENV, WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1' });
    try {
      const [ada, bob] = (await one.seed.users(2)) as [SeededUser, SeededUser];
      const { hook, most } = await holdingReceiver(1_000);
      receivers.push(hook);
      await createEndpoint(one, ada, hook.url, ['meeting.updated']);
      const meeting = await one.seed.meeting(ada).inviting(bob).create();
      await renames(one, ada, meeting.id, 3, 'One lane');
      const got = await hook.waitFor(3);
      expect(got).toHaveLength(3);
      expect(most()).toBe(1);
      const cursors = got.map((r) => r.body.data.cursor);
      expect([...cursors].sort(compareCursors)).toEqual(cursors);
    } finally {
      await one.close();
    }
  });

  it("does not hold another endpoint's deliveries behind an endpoint whose receiver hangs", async () => {
    // Holds every request unanswered until released (each attempt would time out after 10 s).
    const held: ServerResponse[] = [];
    let hanging = true;
    const stuck = await Receiver.start((_n, response) =>
      hanging ? held.push(response) : response.writeHead(204).end(),
    );
    receivers.push(stuck);
    const { hook: prompt } = await holdingReceiver(0);
    receivers.push(prompt);
    await createEndpoint(t, owner, stuck.url, ['meeting.updated']);
    await createEndpoint(t, owner, prompt.url, ['meeting.updated']);
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    try {
      await renames(t, owner, meeting.id, 4, 'Hanging');
      // The hanging receiver holds all four lanes of its endpoint.
      expect(await stuck.waitFor(4)).toHaveLength(4);
      const start = Date.now();
      await renames(t, owner, meeting.id, 6, 'Meanwhile');
      const got = await prompt.waitFor(10, 5_000);
      const tookMs = Date.now() - start;
      expect(got).toHaveLength(10);
      expect(new Set(got.map((r) => r.body.data.cursor)).size).toBe(10);
      // Long before the hanging attempts time out (10 s), and they are still held: four, no more.
      expect(tookMs).toBeLessThan(5_000);
      expect(stuck.received).toHaveLength(4);
      expect(held).toHaveLength(4);
    } finally {
      hanging = false;
      for (const response of held) {
        response.writeHead(204).end();
      }
    }
    // Released, it gets the rest.
    expect(await stuck.waitFor(10)).toHaveLength(10);
  });
});
