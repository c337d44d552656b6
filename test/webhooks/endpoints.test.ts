import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { ALL_EVENT_TYPES, createEndpoint, type Endpoint, eventually, Receiver } from './receiver';

/*
 * A user's webhook endpoints (issue 28): made with a whsec_ secret shown once and kept
 * encrypted; listed, rotated, changed and deleted by their owner only; at most ten; their
 * finished deliveries pruned. Receivers are real HTTP servers on 127.0.0.1.
 */

const UPDATE_MEETING = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const UPDATE_ENDPOINT = `mutation ($input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(input: $input) { endpoint { id url eventTypes enabled disabledReason consecutiveFailures } }
}`;
const ENDPOINTS = `{ webhookEndpoints { id url eventTypes enabled disabledReason createdAt } }`;
const ROTATE = `mutation ($input: RotateWebhookSecretInput!) {
  rotateWebhookSecret(input: $input) { endpoint { id } secret }
}`;
const DELETE = `mutation ($input: DeleteWebhookEndpointInput!) {
  deleteWebhookEndpoint(input: $input) { endpoint { id } }
}`;

describe('webhook endpoints', () => {
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

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    [owner, guest, outsider] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('creates an endpoint, answers its whsec_ secret once, and lists only the caller’s endpoints', async () => {
    const hook = await receiver();
    const { endpoint, secret } = await createEndpoint(t, outsider, hook.url, ['meeting.updated']);
    expect(endpoint).toEqual({
      id: expect.any(String),
      url: hook.url,
      eventTypes: ['meeting.updated'],
      enabled: true,
      disabledReason: null,
      consecutiveFailures: 0,
      createdAt: expect.any(String),
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const mine = await t.gql.data<{ webhookEndpoints: Endpoint[] }>(ENDPOINTS, {}, outsider.token);
    expect(mine.webhookEndpoints.map((e) => e.id)).toContain(endpoint.id);
    expect(JSON.stringify(mine)).not.toContain('whsec_');
    const theirs = await t.gql.data<{ webhookEndpoints: Endpoint[] }>(ENDPOINTS, {}, guest.token);
    expect(theirs.webhookEndpoints.map((e) => e.id)).not.toContain(endpoint.id);
    await t.gql.data(DELETE, { input: { endpointId: endpoint.id } }, outsider.token);
  });

  it('rotates the secret: the new one verifies at once, and the old one still does for a while', async () => {
    const hook = await receiver();
    const created = await createEndpoint(t, owner, hook.url, ['meeting.updated']);
    const rotated = await t.gql.data<{ rotateWebhookSecret: { secret: string } }>(
      ROTATE,
      { input: { endpointId: created.endpoint.id } },
      owner.token,
    );
    const secret = rotated.rotateWebhookSecret.secret;
    expect(secret).not.toBe(created.secret);
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    await rename(meeting.id, 'After rotation');
    const [got] = await hook.waitFor(1);
    const headers = got?.headers as Record<string, string>;
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(got?.raw ?? '', headers)).toMatchObject({
      type: 'meeting.updated',
    });
    expect(new Webhook(created.secret).verify(got?.raw ?? '', headers)).toMatchObject({
      type: 'meeting.updated',
    });
    await t.gql.data(DELETE, { input: { endpointId: created.endpoint.id } }, owner.token);
  });

  it('deletes an endpoint while an attempt of it is being recorded: the delete waits its turn', async () => {
    const hook = await receiver();
    const { endpoint } = await createEndpoint(t, owner, hook.url, ['meeting.updated']);
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    await rename(meeting.id, 'Delivered');
    await hook.waitFor(1);
    // A connection doing what recording an attempt does (webhook.delivery.ts): the delivery's
    // row first, then, while the delete is under way, the endpoint's.
    const recorder = new Client({ connectionString: t.instance.database.url });
    await recorder.connect();
    try {
      await recorder.query('begin');
      const locked = await recorder.query(
        `select "id" from "webhook_deliveries" where "endpoint_id" = $1 for update`,
        [endpoint.id],
      );
      expect(locked.rowCount).toBeGreaterThan(0);
      const deleted = t.gql.request(DELETE, { input: { endpointId: endpoint.id } }, owner.token);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await recorder.query(
        `update "webhook_endpoints" set "consecutive_failures" = 0 where "id" = $1`,
        [endpoint.id],
      );
      await recorder.query('commit');
      expect(await deleted).toEqual({
        status: 200,
        data: { deleteWebhookEndpoint: { endpoint: { id: endpoint.id } } },
        extensions: { cost: { requested: 12, actual: 12 } },
      });
    } finally {
      await recorder.end();
    }
  });

  it('keeps the signing secret encrypted in the database', async () => {
    const hook = await receiver();
    const { endpoint, secret } = await createEndpoint(t, outsider, hook.url, ['meeting.updated']);
    const [row] = await t.instance.database.orm.em
      .fork()
      .getConnection()
      .execute<
        Array<{ secret: string }>
      >('select "secret" from "webhook_endpoints" where "id" = ?', [endpoint.id]);
    expect(row?.secret).toMatch(/^v1\./);
    expect(row?.secret).not.toContain(secret.slice('whsec_'.length, 20));
    await t.gql.data(DELETE, { input: { endpointId: endpoint.id } }, outsider.token);
  });

  it('prunes deliveries finished 30 days ago, and the job queues of endpoints without jobs', async () => {
    const hook = await receiver();
    const { endpoint } = await createEndpoint(t, owner, hook.url, ['meeting.updated']);
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    await rename(meeting.id, 'Soon forgotten');
    const [sent] = await hook.waitFor(1);
    const deliveryId = String(sent?.headers['webhook-id']);
    const connection = t.instance.database.orm.em.fork().getConnection();
    const [old] = await eventually(
      () =>
        connection.execute<Array<{ id: string }>>(
          `update "webhook_deliveries" set "updated_at" = now() - interval '31 days' ` +
            `where "id" = ? and "status" = 'delivered' returning "id"`,
          [deliveryId],
        ),
      (rows) => rows.length === 1,
    );
    expect(old?.id).toBe(deliveryId);
    // The endpoint's own queues, its lanes (the dispatcher's may hold a dispatch at any moment):
    // one delivery, one lane.
    const queues = async () =>
      Number(
        (
          await connection.execute<Array<{ n: string }>>(
            `select count(*) as "n" from "graphile_worker"."_private_job_queues" ` +
              `where "queue_name" like ?`,
            [`webhook:${endpoint.id}:%`],
          )
        )[0]?.n,
      );
    expect(await queues()).toBe(1);
    // The delivery is marked delivered inside its job, which completes (leaves its lane, unlocks
    // it) just after: the prune drops idle lanes once, so it starts when that lane is idle.
    const busyLanes = async () =>
      Number(
        (
          await connection.execute<Array<{ n: string }>>(
            `select count(*) as "n" from "graphile_worker"."_private_job_queues" q ` +
              `where q."queue_name" like ? and (q."locked_at" is not null or exists ` +
              `(select 1 from "graphile_worker"."_private_jobs" j where j."job_queue_id" = q."id"))`,
            [`webhook:${endpoint.id}:%`],
          )
        )[0]?.n,
      );
    expect(await eventually(busyLanes, (n) => n === 0)).toBe(0);
    await connection.execute(`select "graphile_worker".add_job('webhook_prune')`);
    const left = await eventually(
      async () =>
        (
          await connection.execute<Array<{ n: string }>>(
            `select count(*) as "n" from "webhook_deliveries" where "id" = ?`,
            [old?.id],
          )
        )[0]?.n,
      (n) => Number(n) === 0,
    );
    expect(Number(left)).toBe(0);
    await eventually(queues, (n) => n === 0);
    expect(await queues()).toBe(0);
  });

  it('refuses an eleventh endpoint, an unknown event type, a malformed URL and someone else’s endpoint', async () => {
    const [user] = (await t.seed.users(1)) as [SeededUser];
    for (let i = 0; i < 10; i += 1) {
      await createEndpoint(t, user, `http://127.0.0.1:9/hook-${i}`, ['meeting.cancelled']);
    }
    const create = `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`;
    const eleventh = await t.gql.error(
      create,
      { input: { url: 'http://127.0.0.1:9/x', eventTypes: ['meeting.cancelled'] } },
      user.token,
    );
    expect(eleventh.extensions).toMatchObject({
      code: 'CONFLICT',
      reason: 'WEBHOOK_ENDPOINT_LIMIT_REACHED',
    });
    const unknown = await t.gql.error(
      create,
      { input: { url: 'http://127.0.0.1:9/x', eventTypes: ['meeting.exploded'] } },
      owner.token,
    );
    expect(unknown.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { eventTypes: 'INVALID_CHOICE' },
    });
    const none = await t.gql.error(
      create,
      { input: { url: 'http://127.0.0.1:9/x', eventTypes: [] } },
      owner.token,
    );
    expect(none.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { eventTypes: 'TOO_SHORT' },
    });
    for (const url of ['not a url', 'ftp://example.com/hook', 'https://user:pw@example.com/hook']) {
      const bad = await t.gql.error(
        create,
        { input: { url, eventTypes: ['meeting.updated'] } },
        owner.token,
      );
      expect(bad.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        fields: { url: 'INVALID_FORMAT' },
      });
    }
    const theirs = (await t.gql.data<{ webhookEndpoints: Endpoint[] }>(ENDPOINTS, {}, user.token))
      .webhookEndpoints[0];
    for (const [query, input] of [
      [UPDATE_ENDPOINT, { endpointId: theirs?.id, enabled: false }],
      [DELETE, { endpointId: theirs?.id }],
      [ROTATE, { endpointId: theirs?.id }],
    ] as const) {
      const refused = await t.gql.error(query, { input }, owner.token);
      expect(refused.extensions).toMatchObject({
        code: 'NOT_FOUND',
        reason: 'WEBHOOK_ENDPOINT_NOT_FOUND',
      });
    }
    const listing = await t.gql.error(
      `query ($id: UUID!) { webhookDeliveries(endpointId: $id) { totalCount } }`,
      { id: theirs?.id },
      owner.token,
    );
    expect(listing.extensions).toMatchObject({ reason: 'WEBHOOK_ENDPOINT_NOT_FOUND' });
    expect(ALL_EVENT_TYPES).toHaveLength(8);
  });
});
