import { sample } from '../helpers/prometheus';
import { compareCursors } from '../../src/platform/live/change-log';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createEndpoint, eventually, Receiver } from './receiver';

/*
 * An endpoint's backlog bounded and seen (issue 39): past WEBHOOK_MAX_BACKLOG undelivered
 * deliveries it is disabled, saying why, its deliveries kept; WebhookEndpoint.backlog and the
 * metrics show the count; the receiver catches up on what came meanwhile through
 * myMeetingEvents; enabling it resumes the kept deliveries, which then do not count towards the
 * bound. A real HTTP receiver on 127.0.0.1; a bound of 10, and retries a minute away, so that
 * failed deliveries stay pending for the test's length.
 */

const UPDATE_MEETING = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const ENDPOINTS = `{ webhookEndpoints { id enabled disabledReason backlog } }`;
const ENABLE = `mutation ($input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(input: $input) { endpoint { id enabled disabledReason backlog } }
}`;
const EVENTS = `query ($after: String) {
  myMeetingEvents(after: $after, first: 100) { nodes { cursor kind meeting { title } } }
}`;

interface Listed {
  id: string;
  enabled: boolean;
  disabledReason: string | null;
  backlog: number;
}

describe('a webhook endpoint past WEBHOOK_MAX_BACKLOG', () => {
  let t: TestApp;
  let owner: SeededUser;
  let guest: SeededUser;
  const receivers: Receiver[] = [];

  const rename = (meetingId: string, title: string) =>
    t.gql.data(UPDATE_MEETING, { input: { meetingId, title } }, owner.token);
  const listed = async (id: string) =>
    (
      await t.gql.data<{ webhookEndpoints: Listed[] }>(ENDPOINTS, {}, owner.token)
    ).webhookEndpoints.find((endpoint) => endpoint.id === id);
  const metrics = async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    return {
      enabled: sample(text, 'webhook_backlog_deliveries'),
      disabled: sample(text, 'webhook_backlog_disabled_deliveries'),
      largest: sample(text, 'webhook_backlog_largest_deliveries'),
    };
  };

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_MAX_BACKLOG: '10',
      WEBHOOK_RETRY_SCHEDULE: '60',
    });
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('is disabled, its deliveries kept and counted, and resumes them when enabled again', async () => {
    let failing = true;
    // Failing: 503 at once. Then: each request held 300 ms, so the resumed ones take a while.
    const hook = await Receiver.start((_n, response) =>
      failing
        ? response.writeHead(503).end()
        : setTimeout(() => response.writeHead(204).end(), 300),
    );
    receivers.push(hook);
    const { endpoint } = await createEndpoint(t, owner, hook.url, ['meeting.updated']);
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    for (let i = 1; i <= 11; i += 1) {
      await rename(meeting.id, `Backlog ${i}`);
    }
    const disabled = await eventually(
      () => listed(endpoint.id),
      (e) => e?.enabled === false,
    );
    // The eleventh undelivered delivery passed the bound.
    expect(disabled).toEqual({
      id: endpoint.id,
      enabled: false,
      disabledReason: 'more than 10 deliveries undelivered (WEBHOOK_MAX_BACKLOG)',
      backlog: 11,
    });
    expect(await metrics()).toEqual({ enabled: 0, disabled: 11, largest: 0 });
    const tried = hook.received.length;
    expect(tried).toBeLessThanOrEqual(10);

    // While it is disabled, a change makes no delivery for it (another endpoint, made now,
    // receives it: the dispatcher has passed it); its receiver reads it through the events API.
    const other = await Receiver.start();
    receivers.push(other);
    await createEndpoint(t, owner, other.url, ['meeting.updated']);
    await rename(meeting.id, 'While disabled');
    const [seen] = await other.waitFor(1);
    expect((await listed(endpoint.id))?.backlog).toBe(11);
    const [lastCursor] = hook.received
      .map((r) => r.body.data.cursor)
      .sort(compareCursors)
      .reverse();
    const caughtUp = await t.gql.data<{
      myMeetingEvents: {
        nodes: Array<{ cursor: string; kind: string; meeting: { title: string } }>;
      };
    }>(EVENTS, { after: lastCursor }, owner.token);
    expect(caughtUp.myMeetingEvents.nodes.map((event) => event.cursor)).toContain(
      seen?.body.data.cursor,
    );

    // Enabled again: its eleven are resumed, and a change made meanwhile is sent too; the
    // twelve undelivered at once do not disable it again (the eleven are from before).
    failing = false;
    const enabled = await t.gql.data<{ updateWebhookEndpoint: { endpoint: Listed } }>(
      ENABLE,
      { input: { endpointId: endpoint.id, enabled: true } },
      owner.token,
    );
    expect(enabled.updateWebhookEndpoint.endpoint).toMatchObject({
      enabled: true,
      disabledReason: null,
    });
    await rename(meeting.id, 'After enabling');
    const got = await hook.waitFor(tried + 12);
    const resumed = got.slice(tried);
    expect(resumed).toHaveLength(12);
    expect(new Set(resumed.map((r) => r.headers['webhook-id'])).size).toBe(12);
    const settled = await eventually(
      () => listed(endpoint.id),
      (e) => e?.backlog === 0,
    );
    expect(settled).toMatchObject({ enabled: true, backlog: 0 });
    const drained = await eventually(metrics, (m) => m.enabled === 0);
    expect(drained).toEqual({ enabled: 0, disabled: 0, largest: 0 });
  });
});
