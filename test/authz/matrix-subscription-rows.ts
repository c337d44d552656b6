import { Client } from 'pg';
import type { SeededUser } from '../helpers/seed';
import {
  LiveClient,
  waitForActiveSubscriptions,
  waitForSettledChanges,
  waitForSubscriptions,
} from '../helpers/live-client';
import type { World } from './authz-fixtures';
import {
  allowed,
  type Capability,
  type Check,
  forMembers,
  type GraphQLCall,
  MEETING_HIDDEN,
  type Scene,
} from './matrix-capability';

/*
 * The authorization matrix's rows for subscriptions (GraphQL over WebSocket, graphql-ws). A case
 * subscribes as its caller; once the subscription runs, `trigger` makes the event it waits for
 * happen, and the first message is the outcome. A refused subscription never runs, so nothing
 * is triggered and nothing changes.
 */

/** How long a case waits for its subscription to run, then for its first message. */
const WAIT_MS = 3_000;

/** The outcome of a subscription case, in the shape the matrix compares for GraphQL. */
export interface SubscriptionOutcome {
  errors: unknown[] | null;
  data: Record<string, unknown> | null;
}

/**
 * Subscribes as `token` and answers the first message. A socket refused at `connection_init`
 * (4403, no or a bad token) is the WebSocket face's NOT_AUTHENTICATED: no operation runs on it.
 */
export async function performSubscription(
  world: World,
  call: GraphQLCall,
  token: string | undefined,
  trigger: () => Promise<void>,
): Promise<SubscriptionOutcome> {
  // A subscription begins after the newest settled change: while a transaction of another
  // database on the server (another test file's) holds the horizon back, it would hear the
  // scene's own earlier changes first.
  await waitForSettledChanges(world.t.instance, WAIT_MS);
  const client = LiveClient.open(world.t.url, token);
  try {
    if (!(await client.acknowledged)) {
      const closed = await client.closed;
      if (closed.code !== 4403) {
        throw new Error(`socket closed with ${closed.code} ${closed.reason}`);
      }
      const extensions = { code: 'UNAUTHENTICATED', reason: 'NOT_AUTHENTICATED' };
      return { errors: [{ message: closed.reason, extensions }], data: null };
    }
    const subscriber = client.subscribe(call.query, call.variables ?? {});
    const running = waitForSubscriptions(world.t.instance, 1, WAIT_MS).then(() => true);
    const refused = subscriber.received(1, WAIT_MS).then(() => false);
    if (await Promise.race([running, refused])) {
      await trigger();
    }
    const [first] = await subscriber.received(1, WAIT_MS);
    return {
      errors: first?.errors ? [...first.errors] : null,
      data: (first?.data as Record<string, unknown> | undefined) ?? null,
    };
  } finally {
    await client.close();
    // The next case must not take this subscription for its own.
    await waitForActiveSubscriptions(world.t.instance, (active) => active === 0, WAIT_MS);
  }
}

const UPDATE = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const CREATE = `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { id } }
}`;

export const subscriptionCapabilities: Capability[] = [
  {
    action: 'hear of their new invitations',
    rest: [],
    graphql: { operation: 'subscription', field: 'invitationReceived' },
    restCall: () => ({}),
    graphqlCall: () => ({
      query: 'subscription { invitationReceived { meetingId userId status } }',
    }),
    // Someone who is never a caller invites the caller to a meeting of their own.
    trigger: async (scene: Scene, user: SeededUser | null) => {
      await scene.world.t.gql.data(
        CREATE,
        {
          meeting: {
            title: `Invitation ${scene.n}`,
            startTime: new Date(Date.now() + 86_400_000).toISOString(),
            location: 'Room 9, annex',
          },
          participants: [{ userId: user?.id }],
        },
        scene.target.token,
      );
    },
    outcomes: forMembers(
      allowed(200, ({ root, user }) =>
        expect(root).toEqual({ meetingId: expect.any(String), userId: user?.id, status: 'NEW' }),
      ),
    ),
  },
  {
    action: "follow the meeting's events",
    rest: [],
    graphql: { operation: 'subscription', field: 'meetingEvents' },
    restCall: () => ({}),
    graphqlCall: (s) => ({
      query: `subscription ($meetingId: UUID!) {
        meetingEvents(meetingId: $meetingId) { kind meeting { id title } }
      }`,
      variables: { meetingId: s.meeting.id },
    }),
    trigger: async (scene: Scene) => {
      await scene.world.t.gql.data(
        UPDATE,
        { input: { meetingId: scene.meeting.id, title: `Matrix event ${scene.n}` } },
        scene.world.users.owner.token,
      );
    },
    outcomes: forMembers(
      allowed(200, ({ root, scene }) =>
        expect(root).toEqual({
          kind: 'UPDATED',
          meeting: { id: scene.meeting.id, title: `Matrix event ${scene.n}` },
        }),
      ),
      { stranger: MEETING_HIDDEN },
    ),
  },
];

/**
 * A cursor just before the scene meeting's first change: its events come first after it, once
 * settled (a page of the log ends where its changes are; another test file's transaction on the
 * server may hold them back).
 */
async function cursorBefore(scene: Scene): Promise<string> {
  await waitForSettledChanges(scene.world.t.instance, WAIT_MS);
  const admin = new Client({ connectionString: scene.world.t.instance.database.url });
  await admin.connect();
  try {
    const found = await admin.query<{ tx: string; position: string }>(
      `select tx::text as tx, position::text as position from change_log ` +
        `where scope_id = $1 order by tx, position limit 1`,
      [scene.meeting.id],
    );
    const first = found.rows[0];
    if (!first) {
      throw new Error('the scene meeting logged no change');
    }
    return `${first.tx}.${BigInt(first.position) - 1n}`;
  } finally {
    await admin.end();
  }
}

type EventsPage = { edges: Array<{ node: { meeting: { id: string } } }> };

const listsSceneMeeting =
  (included: boolean): Check =>
  ({ root, scene }) => {
    const ids = (root as unknown as EventsPage).edges.map((edge) => edge.node.meeting.id);
    expect(ids.includes(scene.meeting.id)).toBe(included);
  };

/** Events read by query or subscription: the caller's meetings only (admins: all). */
export const eventCapabilities: Capability[] = [
  {
    action: 'page through the events of their meetings',
    rest: [],
    graphql: { operation: 'query', field: 'myMeetingEvents' },
    restCall: () => ({}),
    graphqlCall: async (scene) => ({
      query: `query ($after: String) {
        myMeetingEvents(after: $after, first: 5) { edges { node { meeting { id } } } }
      }`,
      variables: { after: await cursorBefore(scene) },
    }),
    outcomes: forMembers(allowed(200, listsSceneMeeting(true)), {
      stranger: allowed(200, listsSceneMeeting(false), 'without the meeting'),
    }),
  },
  {
    action: 'hear the events of their meetings',
    rest: [],
    graphql: { operation: 'subscription', field: 'myMeetingEvents' },
    restCall: () => ({}),
    graphqlCall: () => ({ query: 'subscription { myMeetingEvents { kind meeting { id } } }' }),
    // The scene meeting changes, then the caller makes a meeting of their own: its events are
    // the first a caller who may not see the scene meeting hears.
    trigger: async (scene: Scene, user: SeededUser | null) => {
      await scene.world.t.gql.data(
        UPDATE,
        { input: { meetingId: scene.meeting.id, title: `Matrix mine ${scene.n}` } },
        scene.world.users.owner.token,
      );
      const caller = Object.values(scene.world.users).find((member) => member.id === user?.id);
      if (caller) {
        await scene.world.t.gql.data(
          CREATE,
          {
            meeting: {
              title: `Own meeting ${scene.n}`,
              startTime: new Date(Date.now() + 86_400_000).toISOString(),
              location: 'Room 9, annex',
            },
            participants: [{ userId: scene.target.id }],
          },
          caller.token,
        );
      }
    },
    outcomes: forMembers(
      allowed(200, ({ root, scene }) =>
        expect(root).toEqual({ kind: 'UPDATED', meeting: { id: scene.meeting.id } }),
      ),
      {
        stranger: allowed(
          200,
          ({ root, scene }) => {
            expect(root['kind']).toBe('PARTICIPANT_ADDED');
            expect((root['meeting'] as { id: string }).id).not.toBe(scene.meeting.id);
          },
          'only their own meeting',
        ),
      },
    ),
  },
];
