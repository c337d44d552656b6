import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { compareCursors } from '../../src/platform/live/change-log';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { attemptsOf, createEndpoint, type Endpoint, eventually, Receiver } from './receiver';

/*
 * Webhook deliveries (issue 28), on one instance: Standard Webhooks signatures that the
 * `standardwebhooks` library verifies; the body; retries with the same webhook-id and the
 * attempts listed; events only of meetings the endpoint's owner may see; commit order;
 * disabling after failed events and enabling again; redelivery. Receivers are real HTTP servers
 * on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE_NETWORKS lets the service call them).
 */

const UPDATE_MEETING = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const UPDATE_ENDPOINT = `mutation ($input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(input: $input) { endpoint { id url eventTypes enabled disabledReason consecutiveFailures } }
}`;
const ENDPOINTS = `{ webhookEndpoints { id url eventTypes enabled disabledReason createdAt } }`;
const REDELIVER = `mutation ($input: RedeliverWebhookInput!) {
  redeliverWebhook(input: $input) { delivery { id status attemptCount } }
}`;
const DELETE = `mutation ($input: DeleteWebhookEndpointInput!) {
  deleteWebhookEndpoint(input: $input) { endpoint { id } }
}`;

describe('webhooks', () => {
  let t: TestApp;
  let owner: SeededUser;
  let guest: SeededUser;
  let outsider: SeededUser;
  const receivers: Receiver[] = [];

  const receiver = async (...args: Parameters<typeof Receiver.start>) => {
    const started = await Receiver.start(...args);
    receivers.push(started);
    return started;
  };
  const rename = (meetingId: string, title: string) =>
    t.gql.data(UPDATE_MEETING, { input: { meetingId, title } }, owner.token);
  const updateEndpoint = (user: SeededUser, input: Record<string, unknown>) =>
    t.gql.data<{ updateWebhookEndpoint: { endpoint: Endpoint } }>(
      UPDATE_ENDPOINT,
      { input },
      user.token,
    );

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
      WEBHOOK_DISABLE_AFTER: '3',
      // One lane per endpoint: its attempts one at a time, so its events arrive in commit order
      // (with more, each lane's do; lanes.test.ts).
      WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1',
    });
    [owner, guest, outsider] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('signs every delivery so that the standardwebhooks library verifies it, with the meeting as its owner reads it', async () => {
    const hook = await receiver();
    const { secret } = await createEndpoint(t, owner, hook.url, ['meeting.participant_added']);
    const meeting = await t.seed.meeting(owner).titled('Signed review').inviting(guest).create();
    const [got] = await hook.waitFor(1);
    expect(got).toBeDefined();
    const { headers, raw } = got as NonNullable<typeof got>;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(secret).verify(raw, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    });
    expect(verified).toEqual({
      type: 'meeting.participant_added',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: {
        meetingId: meeting.id,
        userId: guest.id,
        cursor: expect.stringMatching(/^\d+\.\d+$/),
        meeting: expect.objectContaining({
          id: meeting.id,
          title: 'Signed review',
          status: 'PENDING',
          ownerId: owner.id,
          timeZone: 'UTC',
          participants: [
            expect.objectContaining({ userId: owner.id, status: 'ACCEPTED' }),
            expect.objectContaining({ userId: guest.id, status: 'NEW' }),
          ],
        }),
      },
    });
    // Another secret does not verify it; a changed body does not either.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        raw,
        headers as Record<string, string>,
      ),
    ).toThrow();
    expect(() =>
      new Webhook(secret).verify(
        raw.replace('Signed review', 'Forged review'),
        headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it('retries a receiver that answers 500 twice with the same webhook-id, and lists the three attempts', async () => {
    const hook = await receiver((n, response) => response.writeHead(n < 2 ? 500 : 200).end('ok'));
    const { endpoint } = await createEndpoint(t, guest, hook.url, ['meeting.participant_added']);
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    const got = await hook.waitFor(3);
    expect(got).toHaveLength(3);
    const ids = new Set(got.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(new Set(got.map((r) => r.raw)).size).toBe(1);
    expect(got[0]?.body.data.meetingId).toBe(meeting.id);
    const attempts = await eventually(
      () => attemptsOf(t, guest, endpoint.id),
      (list) => list.length === 3,
    );
    // Newest first.
    expect(attempts.map((a) => [a.number, a.statusCode, a.succeeded])).toEqual([
      [3, 200, true],
      [2, 500, false],
      [1, 500, false],
    ]);
    for (const attempt of attempts) {
      expect(attempt.delivery.id).toBe([...ids][0]);
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      expect(attempt.error).toBeNull();
      expect(attempt.manual).toBe(false);
    }
    expect(attempts[2]?.retryAt).toEqual(expect.any(String));
    expect(attempts[0]?.retryAt).toBeNull();
    expect(attempts[0]?.delivery).toMatchObject({
      status: 'DELIVERED',
      attemptCount: 3,
      nextAttemptAt: null,
      eventType: 'meeting.participant_added',
      meetingId: meeting.id,
    });
    await t.gql.data(DELETE, { input: { endpointId: endpoint.id } }, guest.token);
  });

  it('sends nothing to the endpoint of an outsider, who may not see the meeting', async () => {
    const theirs = await receiver();
    const mine = await receiver();
    await createEndpoint(t, outsider, theirs.url);
    const { endpoint } = await createEndpoint(t, guest, mine.url);
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    await rename(meeting.id, 'Private planning');
    await mine.waitFor(2);
    expect(mine.received.map((r) => r.body.type)).toEqual([
      'meeting.participant_added',
      'meeting.updated',
    ]);
    await mine.settled();
    expect(theirs.received).toEqual([]);
    await t.gql.data(DELETE, { input: { endpointId: endpoint.id } }, guest.token);
  });

  it('sends an endpoint its events in the order they were committed, with one lane', async () => {
    const hook = await receiver();
    const { endpoint } = await createEndpoint(t, owner, hook.url, ['meeting.updated']);
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    const titles = Array.from({ length: 8 }, (_, i) => `Ordered edit ${i + 1}`);
    for (const title of titles) {
      await rename(meeting.id, title);
    }
    const got = await hook.waitFor(8);
    expect(got).toHaveLength(8);
    const cursors = got.map((r) => r.body.data.cursor);
    expect([...cursors].sort(compareCursors)).toEqual(cursors);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(8);
    await t.gql.data(DELETE, { input: { endpointId: endpoint.id } }, owner.token);
  });

  it('disables an endpoint after WEBHOOK_DISABLE_AFTER events failed every attempt, until its owner enables it again', async () => {
    let failing = true;
    const hook = await receiver((_n, response) => response.writeHead(failing ? 503 : 200).end());
    const { endpoint } = await createEndpoint(t, outsider, hook.url, ['meeting.updated']);
    const meeting = await t.seed.meeting(outsider).inviting(guest).create();
    for (let i = 1; i <= 3; i += 1) {
      await t.gql.data(
        UPDATE_MEETING,
        { input: { meetingId: meeting.id, title: `Failing ${i}` } },
        outsider.token,
      );
    }
    // Three events, each tried three times (two retries).
    const disabled = await eventually(
      async () =>
        (await t.gql.data<{ webhookEndpoints: Endpoint[] }>(ENDPOINTS, {}, outsider.token))
          .webhookEndpoints,
      (list) => list.some((e) => e.id === endpoint.id && !e.enabled),
      20_000,
    );
    expect(disabled.find((e) => e.id === endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: '3 consecutive events failed (last: HTTP 503)',
    });
    expect(hook.received).toHaveLength(9);
    // Disabled: a new event is not sent.
    await t.gql.data(
      UPDATE_MEETING,
      { input: { meetingId: meeting.id, title: 'While disabled' } },
      outsider.token,
    );
    await hook.settled();
    expect(hook.received).toHaveLength(9);

    failing = false;
    const enabled = await updateEndpoint(outsider, { endpointId: endpoint.id, enabled: true });
    expect(enabled.updateWebhookEndpoint.endpoint).toMatchObject({
      enabled: true,
      disabledReason: null,
      consecutiveFailures: 0,
    });
    await t.gql.data(
      UPDATE_MEETING,
      { input: { meetingId: meeting.id, title: 'Enabled again' } },
      outsider.token,
    );
    const got = await hook.waitFor(10);
    expect(got[9]?.body.data.meeting['title']).toBe('Enabled again');
  });

  it('disables an endpoint whose attempts failed for WEBHOOK_DISABLE_AFTER_HOURS, however few events', async () => {
    let failing = true;
    const hook = await receiver((_n, response) => response.writeHead(failing ? 503 : 200).end());
    const [slow] = (await t.seed.users(1)) as [SeededUser];
    const { endpoint } = await createEndpoint(t, slow, hook.url, ['meeting.updated']);
    const meeting = await t.seed.meeting(slow).inviting(guest).create();
    const edit = (title: string) =>
      t.gql.data(UPDATE_MEETING, { input: { meetingId: meeting.id, title } }, slow.token);
    const listed = async () =>
      (
        await t.gql.data<{ webhookEndpoints: Endpoint[] }>(
          `{ webhookEndpoints { id enabled disabledReason consecutiveFailures failingSince } }`,
          {},
          slow.token,
        )
      ).webhookEndpoints.find((e) => e.id === endpoint.id);
    await edit('First failure');
    const failingNow = await eventually(listed, (e) => e?.failingSince != null, 10_000);
    // Failing for 73 hours as far as the service knows: the next failed attempt disables it.
    const admin = new Client({ connectionString: t.instance.database.url });
    await admin.connect();
    try {
      await admin.query(
        `update webhook_endpoints set failing_since = now() - interval '73 hours' where id = $1`,
        [endpoint.id],
      );
    } finally {
      await admin.end();
    }
    await edit('Second failure');
    const disabled = await eventually(listed, (e) => e?.enabled === false, 10_000);
    expect(failingNow?.failingSince).toEqual(expect.any(String));
    expect(disabled).toMatchObject({
      enabled: false,
      disabledReason: 'failing for 72 h (last: HTTP 503)',
    });
    expect(disabled?.consecutiveFailures).toBeLessThan(3);

    failing = false;
    const enabled = await updateEndpoint(slow, { endpointId: endpoint.id, enabled: true });
    expect(enabled.updateWebhookEndpoint.endpoint).toMatchObject({ enabled: true });
    expect((await listed())?.failingSince).toBeNull();
  });

  it('redelivers a delivery on request: the same webhook-id and body, a manual attempt', async () => {
    const hook = await receiver();
    const { endpoint } = await createEndpoint(t, owner, hook.url, ['meeting.updated']);
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    await rename(meeting.id, 'Delivered once');
    const [first] = await hook.waitFor(1);
    const deliveryId = String(first?.headers['webhook-id']);
    const asked = await t.gql.data<{
      redeliverWebhook: { delivery: { id: string; status: string } };
    }>(REDELIVER, { input: { deliveryId } }, owner.token);
    expect(asked.redeliverWebhook.delivery).toEqual({
      id: deliveryId,
      status: 'PENDING',
      attemptCount: 1,
    });
    const got = await hook.waitFor(2);
    expect(got[1]?.headers['webhook-id']).toBe(deliveryId);
    expect(got[1]?.raw).toBe(first?.raw);
    const attempts = await eventually(
      () => attemptsOf(t, owner, endpoint.id),
      (list) => list.length === 2,
    );
    expect(attempts.map((a) => [a.number, a.manual, a.succeeded])).toEqual([
      [2, true, true],
      [1, false, true],
    ]);
    // Nobody else can.
    const refused = await t.gql.error(REDELIVER, { input: { deliveryId } }, guest.token);
    expect(refused.extensions).toMatchObject({
      code: 'NOT_FOUND',
      reason: 'WEBHOOK_DELIVERY_NOT_FOUND',
    });
    await t.gql.data(DELETE, { input: { endpointId: endpoint.id } }, owner.token);
  });
});
