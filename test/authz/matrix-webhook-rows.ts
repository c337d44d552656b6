import type { SeededUser } from '../helpers/seed';
import type { TestApp } from '../helpers/test-app';
import type { World } from './authz-fixtures';
import {
  allowed,
  type Capability,
  forMembers,
  NOT_AUTHENTICATED,
  type Outcome,
  refused,
  type Scene,
} from './matrix-capability';

/*
 * The authorization matrix's rows for webhooks (issue 28), GraphQL only. Endpoints are their
 * owner's alone: every member makes and lists their own; an endpoint of the scene's owner, its
 * deliveries and its secret are the owner's to change, read or rotate, and to anyone else (an
 * admin too) they do not exist. The endpoints point at `localhost`: without
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS nothing is ever sent to them.
 */

const URL = 'http://localhost:9/matrix-hook';
const ENDPOINT_HIDDEN = refused(404, 'WEBHOOK_ENDPOINT_NOT_FOUND', 'NOT_FOUND');
const DELIVERY_HIDDEN = refused(404, 'WEBHOOK_DELIVERY_NOT_FOUND', 'NOT_FOUND');

const CREATE = `mutation ($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { endpoint { id url eventTypes enabled } secret }
}`;

/** Only the owner of the scene's meeting (who owns the endpoint), however privileged the rest. */
const ownerOnly = (allowedOutcome: Outcome, hidden: Outcome): Capability['outcomes'] =>
  forMembers(hidden, { owner: allowedOutcome, anonymous: NOT_AUTHENTICATED });

async function newEndpoint(t: TestApp, user: SeededUser, eventTypes: string[]): Promise<string> {
  const data = await t.gql.data<{ createWebhookEndpoint: { endpoint: { id: string } } }>(
    CREATE,
    { input: { url: URL, eventTypes } },
    user.token,
  );
  return data.createWebhookEndpoint.endpoint.id;
}

/** One endpoint of the scene's owner per world and purpose, made on first use. */
const owned = new Map<string, Promise<string>>();
function ownersEndpoint(world: World, purpose: string): Promise<string> {
  const key = `${world.users.owner.id} ${purpose}`;
  let endpoint = owned.get(key);
  if (!endpoint) {
    endpoint = newEndpoint(world.t, world.users.owner, ['meeting.completed']);
    owned.set(key, endpoint);
  }
  return endpoint;
}

/** A delivery to an endpoint of the owner: of an edit of the first scene's meeting. */
const deliveries = new Map<string, Promise<string>>();
function ownersDelivery(scene: Scene): Promise<string> {
  const { world } = scene;
  let delivery = deliveries.get(world.users.owner.id);
  if (!delivery) {
    delivery = (async () => {
      const endpointId = await newEndpoint(world.t, world.users.owner, ['meeting.updated']);
      await world.t.gql.data(
        `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`,
        { input: { meetingId: scene.meeting.id, title: 'Webhook matrix edit' } },
        world.users.owner.token,
      );
      const connection = world.t.instance.database.orm.em.fork().getConnection();
      for (let tries = 0; tries < 200; tries += 1) {
        const [row] = await connection.execute<Array<{ id: string }>>(
          'select "id" from "webhook_deliveries" where "endpoint_id" = ?',
          [endpointId],
        );
        if (row) {
          return row.id;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('no webhook delivery was made for the matrix');
    })();
    deliveries.set(world.users.owner.id, delivery);
  }
  return delivery;
}

export const webhookCapabilities: Capability[] = [
  {
    action: 'add a webhook endpoint of their own',
    rest: [],
    graphql: { operation: 'mutation', field: 'createWebhookEndpoint' },
    restCall: () => ({}),
    graphqlCall: () => ({
      query: CREATE,
      variables: { input: { url: URL, eventTypes: ['meeting.completed'] } },
    }),
    outcomes: forMembers(
      allowed(200, ({ root }) => {
        expect(root).toEqual({
          endpoint: {
            id: expect.any(String),
            url: URL,
            eventTypes: ['meeting.completed'],
            enabled: true,
          },
          secret: expect.stringMatching(/^whsec_/),
        });
      }),
    ),
  },
  {
    action: 'list their own webhook endpoints',
    rest: [],
    graphql: { operation: 'query', field: 'webhookEndpoints' },
    restCall: () => ({}),
    prepare: async (s) => {
      await ownersEndpoint(s.world, 'listed');
    },
    graphqlCall: () => ({ query: '{ webhookEndpoints { id url } }' }),
    outcomes: forMembers(
      allowed(200, async ({ root, scene, caller }) => {
        const ownersId = await ownersEndpoint(scene.world, 'listed');
        const ids = (root as unknown as Array<{ id: string }>).map((endpoint) => endpoint.id);
        expect(ids.includes(ownersId)).toBe(caller === 'owner');
      }),
    ),
  },
  {
    action: 'change a webhook endpoint of the owner’s',
    rest: [],
    graphql: { operation: 'mutation', field: 'updateWebhookEndpoint' },
    restCall: () => ({}),
    graphqlCall: async (s) => ({
      query: `mutation ($input: UpdateWebhookEndpointInput!) {
        updateWebhookEndpoint(input: $input) { endpoint { id eventTypes } }
      }`,
      variables: {
        input: {
          endpointId: await ownersEndpoint(s.world, 'changed'),
          eventTypes: ['meeting.cancelled'],
        },
      },
    }),
    outcomes: ownerOnly(
      allowed(200, ({ root }) =>
        expect(root).toEqual({
          endpoint: { id: expect.any(String), eventTypes: ['meeting.cancelled'] },
        }),
      ),
      ENDPOINT_HIDDEN,
    ),
  },
  {
    action: 'delete a webhook endpoint of the owner’s',
    rest: [],
    graphql: { operation: 'mutation', field: 'deleteWebhookEndpoint' },
    restCall: () => ({}),
    graphqlCall: async (s) => ({
      query: `mutation ($input: DeleteWebhookEndpointInput!) {
        deleteWebhookEndpoint(input: $input) { endpoint { id } }
      }`,
      variables: { input: { endpointId: await ownersEndpoint(s.world, 'deleted') } },
    }),
    outcomes: ownerOnly(
      allowed(200, async ({ root, scene }) => {
        const id = await ownersEndpoint(scene.world, 'deleted');
        expect(root).toEqual({ endpoint: { id } });
        // Gone: the callers after the owner get a new one to be refused.
        owned.delete(`${scene.world.users.owner.id} deleted`);
      }),
      ENDPOINT_HIDDEN,
    ),
  },
  {
    action: 'rotate the secret of a webhook endpoint of the owner’s',
    rest: [],
    graphql: { operation: 'mutation', field: 'rotateWebhookSecret' },
    restCall: () => ({}),
    graphqlCall: async (s) => ({
      query: `mutation ($input: RotateWebhookSecretInput!) {
        rotateWebhookSecret(input: $input) { endpoint { id } secret }
      }`,
      variables: { input: { endpointId: await ownersEndpoint(s.world, 'rotated') } },
    }),
    outcomes: ownerOnly(
      allowed(200, ({ root }) =>
        expect(root).toEqual({
          endpoint: { id: expect.any(String) },
          secret: expect.stringMatching(/^whsec_/),
        }),
      ),
      ENDPOINT_HIDDEN,
    ),
  },
  {
    action: 'read the delivery attempts of a webhook endpoint of the owner’s',
    rest: [],
    graphql: { operation: 'query', field: 'webhookDeliveries' },
    restCall: () => ({}),
    graphqlCall: async (s) => ({
      query: `query ($endpointId: UUID!) {
        webhookDeliveries(endpointId: $endpointId, first: 10) { totalCount nodes { id } }
      }`,
      variables: { endpointId: await ownersEndpoint(s.world, 'read') },
    }),
    outcomes: ownerOnly(
      allowed(200, ({ root }) => expect(root).toEqual({ totalCount: 0, nodes: [] })),
      ENDPOINT_HIDDEN,
    ),
  },
  {
    action: 'redeliver a webhook delivery to the owner’s endpoint',
    rest: [],
    graphql: { operation: 'mutation', field: 'redeliverWebhook' },
    restCall: () => ({}),
    prepare: async (s) => {
      await ownersDelivery(s);
    },
    graphqlCall: async (s) => ({
      query: `mutation ($input: RedeliverWebhookInput!) {
        redeliverWebhook(input: $input) { delivery { id status } }
      }`,
      variables: { input: { deliveryId: await ownersDelivery(s) } },
    }),
    outcomes: ownerOnly(
      allowed(200, async ({ root, scene }) =>
        expect(root).toEqual({ delivery: { id: await ownersDelivery(scene), status: 'PENDING' } }),
      ),
      DELIVERY_HIDDEN,
    ),
  },
];
