import { testDatabaseKind } from '../helpers/test-database';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildSchema,
  getNamedType,
  getNullableType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLInputType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { routes } from '../../rest/routes';
import type { RestBody } from '../helpers/rest-client';
import type { SeededMeeting, SeededUser } from '../helpers/seed';
import {
  CALLERS,
  type Caller,
  callerPhrase,
  camelize,
  follows,
  freshMeeting,
  inHours,
  type Member,
  meetingState,
  NOT_AUTHENTICATED_CHALLENGE,
  restOutcome,
  rowCounts,
  signIn,
  startWorld,
  tokenOf,
  UNKNOWN_ID,
  type World,
} from './authz-fixtures';
import {
  allowed,
  type Capability,
  type Check,
  type CheckContext,
  forEveryone,
  forMembers,
  lower,
  MEETING_HIDDEN,
  MEETING_ID,
  NOT_A_PARTICIPANT,
  ONLY_OWNER_ADDS,
  type Outcome,
  OWNER_CANNOT_DECLINE,
  othersUnchanged,
  rowOf,
  type Scene,
} from './matrix-capability';
import { lifecycleCapabilities } from './matrix-lifecycle-rows';
import { timeCapabilities } from './matrix-time-rows';
import { calendarCapabilities } from './matrix-calendar-rows';
import { nodeCapabilities } from './matrix-node-rows';
import { sessionCapabilities } from './matrix-session-rows';
import { webhookCapabilities } from './matrix-webhook-rows';
import { awayCapabilities } from './matrix-away-rows';
import { mailCapabilities } from './matrix-mail-rows';
import { resourceCapabilities } from './matrix-resource-rows';
import {
  eventCapabilities,
  performSubscription,
  subscriptionCapabilities,
} from './matrix-subscription-rows';

/*
 * The authorization matrix: every REST route of rest/routes.ts and every root field of the GraphQL
 * schema, called by each kind of caller, with the outcome the REST contract (docs/rest-contract.md
 * §3-§5) requires. Each case runs on a fresh meeting of `owner` that invites `participant` (status
 * new). The rows of the meeting lifecycle and of sessions (§7) are in matrix-lifecycle-rows.ts and
 * matrix-session-rows.ts.
 */

const capabilities: Capability[] = [
  {
    action: 'register an account',
    rest: ['POST /auth/register'],
    graphql: { operation: 'mutation', field: 'register' },
    restCall: (s) => ({
      body: {
        form: {
          name: `Matrix Person ${s.n}`,
          account: `matrix.rest.${s.n}`,
          email: `matrix.rest.${s.n}@example.com`,
          password: 'Matrix-Password-1',
          password_confirm: 'Matrix-Password-1',
        },
      },
    }),
    graphqlCall: (s) => ({
      query: `mutation ($name: String!, $account: String!, $email: String!, $password: String!) {
        register(input: { name: $name, account: $account, email: $email, password: $password, passwordConfirm: $password }) {
          user { id account roles isSuperuser isActive }
        }
      }`,
      variables: {
        name: `Matrix Person ${s.n}`,
        account: `matrix.gql.${s.n}`,
        email: `matrix.gql.${s.n}@example.com`,
        password: 'Matrix-Password-1',
      },
    }),
    outcomes: forEveryone(
      allowed(201, ({ root, scene }) => {
        expect(root).toMatchObject({
          account: expect.stringMatching(new RegExp(`^matrix\\.(rest|gql)\\.${scene.n}$`)),
          isSuperuser: false,
          isActive: true,
        });
        expect(lower(root['roles'])).toBe('user');
      }),
    ),
  },
  {
    action: 'sign in',
    rest: ['POST /auth/login'],
    graphql: { operation: 'mutation', field: 'login' },
    restCall: (s) => ({ body: { json: { email: s.target.email, password: s.target.password } } }),
    graphqlCall: (s) => ({
      query: `mutation ($username: String!, $password: String!) {
        login(input: { username: $username, password: $password }) { tokens { accessToken tokenType } }
      }`,
      variables: { username: s.target.email, password: s.target.password },
    }),
    outcomes: forEveryone(
      allowed(200, ({ root }) => expect(root['accessToken']).toEqual(expect.any(String))),
    ),
  },
  {
    action: 'trade a refresh token for new tokens',
    rest: ['POST /auth/token'],
    graphql: { operation: 'mutation', field: 'refreshToken' },
    restCall: (s) => ({
      body: { form: { grant_type: 'refresh_token', refresh_token: s.refreshToken } },
    }),
    graphqlCall: (s) => ({
      query: `mutation ($token: String!) {
        refreshToken(input: { refreshToken: $token }) { tokens { accessToken } }
      }`,
      variables: { token: s.refreshToken },
    }),
    outcomes: forEveryone(
      allowed(200, ({ root }) => expect(root['accessToken']).toEqual(expect.any(String))),
    ),
  },
  {
    action: 'read their own profile',
    rest: ['GET /user/me'],
    graphql: { operation: 'query', field: 'me' },
    restCall: () => ({}),
    graphqlCall: () => ({ query: '{ me { id mailPreferences { invitations } } }' }),
    outcomes: forMembers(
      allowed(200, ({ root, user, face }) => {
        expect(root['id']).toBe(user?.id);
        // Their own mail preferences (GraphQL only: the REST record is frozen).
        if (face === 'GraphQL') {
          expect(root['mailPreferences']).toEqual({ invitations: true });
        }
      }),
    ),
  },
  {
    action: 'search users',
    rest: ['GET /user/search'],
    graphql: { operation: 'query', field: 'searchUsers' },
    restCall: (s) => ({ query: { q: s.target.account } }),
    graphqlCall: (s) => ({
      query: `query ($q: String!) { searchUsers(q: $q) { count data { id } } }`,
      variables: { q: s.target.account },
    }),
    outcomes: forMembers(
      allowed(200, ({ root, scene }) =>
        expect(root).toEqual({
          count: 1,
          data: [expect.objectContaining({ id: scene.target.id })],
        }),
      ),
    ),
  },
  {
    action: 'read a user by account',
    rest: ['GET /user/:account'],
    graphql: { operation: 'query', field: 'user' },
    restCall: (s) => ({ params: { account: s.target.account } }),
    graphqlCall: (s) => ({
      query: `query ($account: String!) { user(account: $account) { id mailPreferences { reminders } } }`,
      variables: { account: s.target.account },
    }),
    outcomes: forMembers(
      allowed(200, ({ root, scene, face }) => {
        expect(root['id']).toBe(scene.target.id);
        // Another user's mail preferences are theirs alone, admins' and superusers' view included.
        expect(root['mailPreferences']).toBe(face === 'GraphQL' ? null : undefined);
      }),
    ),
  },
  {
    action: 'list whom they follow',
    rest: ['GET /follow/following', 'GET /follow/me/following'],
    graphql: { operation: 'query', field: 'following' },
    restCall: () => ({}),
    graphqlCall: () => ({ query: '{ following { count data { id followingId } } }' }),
    outcomes: forMembers(
      allowed(200, ({ root }) =>
        expect(root).toEqual({ count: expect.any(Number), data: expect.any(Array) }),
      ),
    ),
  },
  {
    action: 'list their followers',
    rest: ['GET /follow/followers', 'GET /follow/me/followers'],
    graphql: { operation: 'query', field: 'followers' },
    restCall: () => ({}),
    graphqlCall: () => ({ query: '{ followers { count data { id followerId } } }' }),
    outcomes: forMembers(
      allowed(200, ({ root }) =>
        expect(root).toEqual({ count: expect.any(Number), data: expect.any(Array) }),
      ),
    ),
  },
  {
    action: 'read the follow status with a user',
    rest: ['GET /follow/status/:user_id'],
    graphql: { operation: 'query', field: 'followStatus' },
    restCall: (s) => ({ params: { user_id: s.target.id } }),
    graphqlCall: (s) => ({
      query: `query ($userId: UUID!) { followStatus(userId: $userId) { isFollowing isFollowedBy isMutual } }`,
      variables: { userId: s.target.id },
    }),
    outcomes: forMembers(
      allowed(200, ({ root }) =>
        expect(root).toEqual({
          isFollowing: expect.any(Boolean),
          isFollowedBy: expect.any(Boolean),
          isMutual: expect.any(Boolean),
        }),
      ),
    ),
  },
  {
    action: 'follow a user',
    rest: ['POST /follow/follow/:user_id', 'POST /follow/:user_id/add'],
    graphql: { operation: 'mutation', field: 'follow' },
    restCall: (s) => ({ params: { user_id: s.target.id } }),
    graphqlCall: (s) => ({
      query: `mutation ($userId: UUID!) { follow(input: { userId: $userId }) { follow { id followingId } } }`,
      variables: { userId: s.target.id },
    }),
    outcomes: forMembers(
      allowed(200, async ({ user, scene }) =>
        expect(await follows(scene.world.t, user?.id ?? '', scene.target.id)).toBe(true),
      ),
    ),
  },
  {
    action: 'unfollow a user',
    rest: ['POST /follow/unfollow/:user_id', 'POST /follow/:user_id/remove'],
    graphql: { operation: 'mutation', field: 'unfollow' },
    restCall: (s) => ({ params: { user_id: s.target.id } }),
    graphqlCall: (s) => ({
      query: `mutation ($userId: UUID!) { unfollow(input: { userId: $userId }) { unfollowed } }`,
      variables: { userId: s.target.id },
    }),
    outcomes: forMembers(
      allowed(200, async ({ user, scene }) =>
        expect(await follows(scene.world.t, user?.id ?? '', scene.target.id)).toBe(false),
      ),
    ),
  },
  {
    action: 'create a meeting',
    rest: ['POST /meeting/create'],
    graphql: { operation: 'mutation', field: 'createMeeting' },
    restCall: (s) => ({
      body: {
        json: {
          meeting: { title: 'Matrix created', start_time: inHours(30), location: 'Room 12, HQ' },
          participants: [{ user_id: s.target.id }],
        },
      },
    }),
    graphqlCall: (s) => ({
      query: `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
        createMeeting(input: { meeting: $meeting, participants: $participants }) {
          meeting { id ownerId status reminderMinutes participants { userId status } }
        }
      }`,
      variables: {
        meeting: {
          title: 'Matrix created',
          startTime: inHours(30),
          location: 'Room 12, HQ',
          reminderMinutes: [15, 0],
        },
        participants: [{ userId: s.target.id }],
      },
    }),
    outcomes: forMembers(
      allowed(201, ({ root, user, scene, face }) => {
        expect(root['ownerId']).toBe(user?.id);
        // Reminders are set over GraphQL; the REST record does not carry them.
        expect(root['reminderMinutes']).toEqual(face === 'GraphQL' ? [0, 15] : undefined);
        expect(lower(root['status'])).toBe('pending');
        expect(
          (root['participants'] as Array<{ userId: string; status: string }>).map((p) => [
            p.userId,
            lower(p.status),
          ]),
        ).toEqual([
          [user?.id, 'accepted'],
          [scene.target.id, 'new'],
        ]);
      }),
    ),
  },
  {
    action: 'list the meetings they own or accepted',
    rest: ['GET /meeting/index'],
    graphql: { operation: 'query', field: 'myMeetings' },
    restCall: () => ({}),
    graphqlCall: () => ({ query: '{ myMeetings { id } }' }),
    outcomes: ((): Record<Caller, Outcome> => {
      const lists = (included: boolean): Check => {
        return ({ root, scene }) => {
          const ids = (root as unknown as Array<{ id: string }>).map((m) => m.id);
          expect(ids.includes(scene.meeting.id)).toBe(included);
        };
      };
      const without = allowed(200, lists(false), 'without the meeting');
      return forMembers(without, { owner: allowed(200, lists(true), 'with the meeting') });
    })(),
  },
  {
    action: 'list their meeting requests',
    rest: ['GET /meeting/requests'],
    graphql: { operation: 'query', field: 'meetingRequests' },
    restCall: () => ({}),
    graphqlCall: () => ({ query: '{ meetingRequests { id meetingId userId } }' }),
    outcomes: ((): Record<Caller, Outcome> => {
      const lists = (included: boolean): Check => {
        return ({ root, scene, user }) => {
          const rows = root as unknown as Array<{ meetingId: string; userId: string }>;
          expect(rows.every((row) => row.userId === user?.id)).toBe(true);
          expect(rows.some((row) => row.meetingId === scene.meeting.id)).toBe(included);
        };
      };
      const without = allowed(200, lists(false), 'without the invitation');
      return forMembers(without, {
        participant: allowed(200, lists(true), 'with the invitation'),
      });
    })(),
  },
  {
    action: 'page through the meetings they own or are invited to',
    rest: [],
    graphql: { operation: 'query', field: 'meetings' },
    restCall: () => ({}),
    // Latest start first: the scene's meeting is the newest of a world that holds many.
    graphqlCall: () => ({
      query: '{ meetings(first: 100, filter: { order: DESC }) { totalCount nodes { id } } }',
    }),
    outcomes: ((): Record<Caller, Outcome> => {
      const lists = (included: boolean): Check => {
        return ({ root, scene }) => {
          const ids = (root['nodes'] as Array<{ id: string }>).map((m) => m.id);
          expect(ids.includes(scene.meeting.id)).toBe(included);
        };
      };
      const without = allowed(200, lists(false), 'without the meeting');
      return forMembers(without, {
        owner: allowed(200, lists(true), 'with the meeting'),
        participant: allowed(200, lists(true), 'with the meeting'),
      });
    })(),
  },
  {
    action: 'page through their invitations',
    rest: [],
    graphql: { operation: 'query', field: 'invitations' },
    restCall: () => ({}),
    graphqlCall: () => ({ query: '{ invitations(first: 100) { nodes { meetingId userId } } }' }),
    outcomes: ((): Record<Caller, Outcome> => {
      const lists = (included: boolean): Check => {
        return ({ root, scene, user }) => {
          const rows = root['nodes'] as Array<{ meetingId: string; userId: string }>;
          expect(rows.every((row) => row.userId === user?.id)).toBe(true);
          expect(rows.some((row) => row.meetingId === scene.meeting.id)).toBe(included);
        };
      };
      const without = allowed(200, lists(false), 'without the invitation');
      return forMembers(without, {
        participant: allowed(200, lists(true), 'with the invitation'),
      });
    })(),
  },
  {
    action: 'page through whom they follow',
    rest: [],
    graphql: { operation: 'query', field: 'followingConnection' },
    restCall: () => ({}),
    graphqlCall: () => ({
      query: '{ followingConnection { totalCount nodes { followerId } } }',
    }),
    outcomes: forMembers(
      allowed(200, ({ root, user }) => {
        const rows = root['nodes'] as Array<{ followerId: string }>;
        expect(rows.every((row) => row.followerId === user?.id)).toBe(true);
      }),
    ),
  },
  {
    action: 'page through their followers',
    rest: [],
    graphql: { operation: 'query', field: 'followersConnection' },
    restCall: () => ({}),
    graphqlCall: () => ({
      query: '{ followersConnection { totalCount nodes { followingId } } }',
    }),
    outcomes: forMembers(
      allowed(200, ({ root, user }) => {
        const rows = root['nodes'] as Array<{ followingId: string }>;
        expect(rows.every((row) => row.followingId === user?.id)).toBe(true);
      }),
    ),
  },
  {
    action: 'page through a user search',
    rest: [],
    graphql: { operation: 'query', field: 'searchUsersConnection' },
    restCall: () => ({}),
    graphqlCall: (s) => ({
      query: `query ($q: String!) { searchUsersConnection(q: $q) { totalCount nodes { id } } }`,
      variables: { q: s.target.account },
    }),
    outcomes: forMembers(
      allowed(200, ({ root, scene }) =>
        expect(root).toEqual({ totalCount: 1, nodes: [{ id: scene.target.id }] }),
      ),
    ),
  },
  {
    action: 'read the meeting',
    rest: ['GET /meeting/:meeting_id'],
    graphql: { operation: 'query', field: 'meeting' },
    restCall: (s) => ({ params: { meeting_id: s.meeting.id } }),
    graphqlCall: (s) => ({
      query: `query (${MEETING_ID}) { meeting(meetingId: $meetingId) { id ownerId participants { userId } } }`,
      variables: { meetingId: s.meeting.id },
    }),
    outcomes: forMembers(
      allowed(200, ({ root, scene }) => {
        expect(root['id']).toBe(scene.meeting.id);
        expect(root['ownerId']).toBe(scene.world.users.owner.id);
      }),
      { stranger: MEETING_HIDDEN },
    ),
  },
  {
    action: 'add a participant',
    rest: ['POST /meeting/:meeting_id/participants/add'],
    graphql: { operation: 'mutation', field: 'addParticipant' },
    restCall: (s) => ({
      params: { meeting_id: s.meeting.id },
      body: { json: { user_id: s.guest.id } },
    }),
    graphqlCall: (s) => ({
      query: `mutation (${MEETING_ID}, $userId: UUID!) {
        addParticipant(input: { meetingId: $meetingId, userId: $userId }) {
          participant { id meetingId userId status }
        }
      }`,
      variables: { meetingId: s.meeting.id, userId: s.guest.id },
    }),
    outcomes: forMembers(
      allowed(200, ({ root, scene, before, after }) => {
        expect(root).toMatchObject({ meetingId: scene.meeting.id, userId: scene.guest.id });
        expect(lower(root['status'])).toBe('new');
        expect(rowOf(after, scene.guest.id)?.status).toBe('new');
        othersUnchanged(before, after, scene.guest.id);
      }),
      { stranger: MEETING_HIDDEN, participant: ONLY_OWNER_ADDS },
    ),
  },
  {
    action: 'approve the meeting',
    rest: ['POST /meeting/:meeting_id/approve'],
    graphql: { operation: 'mutation', field: 'approveMeeting' },
    restCall: (s) => ({ params: { meeting_id: s.meeting.id } }),
    graphqlCall: (s) => ({
      query: `mutation (${MEETING_ID}) {
        approveMeeting(input: { meetingId: $meetingId }) { meeting { id status } }
      }`,
      variables: { meetingId: s.meeting.id },
    }),
    outcomes: forMembers(NOT_A_PARTICIPANT, {
      stranger: MEETING_HIDDEN,
      participant: allowed(
        200,
        ({ user, before, after }) => {
          expect(rowOf(after, user?.id ?? '')?.status).toBe('accepted');
          othersUnchanged(before, after, user?.id ?? '');
          expect(after.status).toBe('confirmed');
        },
        'which confirms it',
      ),
      owner: allowed(
        200,
        ({ before, after }) => {
          expect(after.participants.map((p) => p.status)).toEqual(['accepted', 'new']);
          expect(after.status).toBe(before.status);
        },
        'changing nothing (already accepted)',
      ),
    }),
  },
  {
    action: 'decline the meeting',
    rest: ['POST /meeting/:meeting_id/decline'],
    graphql: { operation: 'mutation', field: 'declineMeeting' },
    restCall: (s) => ({ params: { meeting_id: s.meeting.id } }),
    graphqlCall: (s) => ({
      query: `mutation (${MEETING_ID}) {
        declineMeeting(input: { meetingId: $meetingId }) { meeting { id status } }
      }`,
      variables: { meetingId: s.meeting.id },
    }),
    outcomes: forMembers(NOT_A_PARTICIPANT, {
      stranger: MEETING_HIDDEN,
      participant: allowed(
        200,
        ({ user, before, after }) => {
          expect(rowOf(after, user?.id ?? '')?.status).toBe('declined');
          othersUnchanged(before, after, user?.id ?? '');
          expect(after.status).toBe('cancelled');
        },
        'which cancels it',
      ),
      owner: OWNER_CANNOT_DECLINE,
    }),
  },
  ...lifecycleCapabilities,
  ...timeCapabilities,
  ...calendarCapabilities,
  ...sessionCapabilities,
  ...subscriptionCapabilities,
  ...eventCapabilities,
  ...nodeCapabilities,
  ...webhookCapabilities,
  ...awayCapabilities,
  ...resourceCapabilities,
  ...mailCapabilities,
];

/** Every route of the REST table, as `METHOD /path`. */
const restRouteKeys = routes.map((route) => `${route.method.toUpperCase()} ${route.path}`);

/** The checked-in SDL: the test cases are generated from it, before the service starts. */
const sdl = buildSchema(readFileSync(join(__dirname, '../../schema/schema.graphql'), 'utf8'));

/**
 * A mutation's payload as the REST face answers it (rest/operations.ts): the one field a call
 * selects of it (`register { user }` → the user); anything else as it is.
 */
function asRestBody(capability: Capability, value: unknown): unknown {
  const { operation, field } = capability.graphql;
  const root = operation === 'query' ? sdl.getQueryType() : sdl.getMutationType();
  const type = getNamedType(root?.getFields()[field]?.type);
  const keys = value !== null && typeof value === 'object' ? Object.keys(value) : [];
  return type?.name.endsWith('Payload') && keys.length === 1 && keys[0] !== undefined
    ? (value as Record<string, unknown>)[keys[0]]
    : value;
}

const rootFieldKeys = (schema: GraphQLSchema): string[] =>
  [
    ...Object.keys(schema.getQueryType()?.getFields() ?? {}).map((f) => `query ${f}`),
    ...Object.keys(schema.getMutationType()?.getFields() ?? {}).map((f) => `mutation ${f}`),
    ...Object.keys(schema.getSubscriptionType()?.getFields() ?? {}).map((f) => `subscription ${f}`),
  ].sort();

interface Case {
  face: 'REST' | 'GraphQL';
  /** `GET /meeting/:meeting_id` or `query meeting`. */
  endpoint: string;
  capability: Capability;
  caller: Caller;
  outcome: Outcome;
  name: string;
}

function caseName(capability: Capability, caller: Caller, outcome: Outcome, face: string): string {
  const who = callerPhrase[caller];
  if (outcome.kind === 'refused') {
    const code =
      face === 'REST' ? `${outcome.status} ${outcome.code}` : `${outcome.category}/${outcome.code}`;
    return `${who} cannot ${capability.action} (${code})`;
  }
  const note = outcome.note ? `, ${outcome.note}` : '';
  return `${who} can ${capability.action}${note} (${face === 'REST' ? outcome.status : 'data'})`;
}

const cases: Case[] = capabilities.flatMap((capability) => {
  const endpoints: Array<{ face: Case['face']; endpoint: string }> = [
    ...capability.rest.map((endpoint) => ({ face: 'REST' as const, endpoint })),
    {
      face: 'GraphQL' as const,
      endpoint: `${capability.graphql.operation} ${capability.graphql.field}`,
    },
  ];
  return endpoints.flatMap(({ face, endpoint }) =>
    CALLERS.map((caller) => ({
      face,
      endpoint,
      capability,
      caller,
      outcome: capability.outcomes[caller],
      name: caseName(capability, caller, capability.outcomes[caller], face),
    })),
  );
});

const endpointCount = new Set(cases.map((c) => `${c.face} ${c.endpoint}`)).size;

describe('the authorization matrix', () => {
  let world: World;
  let guest: SeededUser;
  let target: SeededUser;
  let refreshToken: string;
  let counter = 0;

  beforeAll(async () => {
    // The answer cache never serves one caller's answer to another: the matrix runs with it on
    // in the PostgreSQL project, and off (the default) on the embedded database.
    world = await startWorld({ RESPONSE_CACHE: testDatabaseKind === 'postgres' ? 'on' : 'off' });
    [guest, target] = (await world.t.seed.users(2)) as [SeededUser, SeededUser];
    refreshToken = await signIn(world, target);
    console.log(
      `authz matrix: ${endpointCount} endpoints (${restRouteKeys.length} REST routes + ` +
        `${endpointCount - restRouteKeys.length} GraphQL root fields) × ${CALLERS.length} callers ` +
        `= ${cases.length} cases`,
    );
  });
  afterAll(() => world.t.close());

  it('covers every REST route of the table and every GraphQL root field, each for every caller', () => {
    const restCovered = capabilities.flatMap((c) => c.rest).sort();
    expect(restCovered).toEqual([...restRouteKeys].sort());
    const graphqlCovered = capabilities
      .map((c) => `${c.graphql.operation} ${c.graphql.field}`)
      .sort();
    expect(graphqlCovered).toEqual(rootFieldKeys(sdl));
    expect(rootFieldKeys(world.t.instance.schema)).toEqual(rootFieldKeys(sdl));
    expect(cases).toHaveLength(endpointCount * CALLERS.length);
  });

  const userOf = (caller: Caller): SeededUser | null =>
    caller === 'anonymous' ? null : world.users[caller as Member];

  async function perform(c: Case, scene: Scene): Promise<{ outcome: unknown; root: unknown }> {
    const token = tokenOf(world, c.caller);
    if (c.face === 'REST') {
      const [method, template] = c.endpoint.split(' ') as [string, string];
      const call = c.capability.restCall(scene);
      const path = template.replace(/:([a-z_]+)/g, (_, name: string) => {
        const value = call.params?.[name];
        if (value === undefined) {
          throw new Error(`no value for :${name} in ${c.endpoint}`);
        }
        return encodeURIComponent(value);
      });
      const response = await world.rest.request(method, path, call.body, {
        token,
        query: call.query,
      });
      const outcome = restOutcome(response);
      return { outcome, root: camelize(response.body) };
    }
    const call = await c.capability.graphqlCall(scene, userOf(c.caller));
    const { trigger } = c.capability;
    const result =
      c.capability.graphql.operation === 'subscription'
        ? await performSubscription(world, call, token, () =>
            trigger ? trigger(scene, userOf(c.caller)) : Promise.resolve(),
          )
        : await world.t.gql.request(call.query, call.variables ?? {}, token);
    const data = (result.data ?? null) as Record<string, unknown> | null;
    const value = data?.[c.capability.graphql.field];
    return {
      outcome: { errors: result.errors ?? null, data },
      // Re-created in this realm, so `expect.any(Array)` recognises the arrays of fetch's JSON.
      // A row with REST routes checks both faces alike: a payload as REST answers it.
      root: camelize(c.capability.rest.length > 0 ? asRestBody(c.capability, value) : value),
    };
  }

  function expected(c: Case): unknown {
    const outcome = c.outcome;
    if (c.face === 'REST') {
      if (outcome.kind === 'refused') {
        return {
          status: outcome.status,
          challenge: outcome.status === 401 ? NOT_AUTHENTICATED_CHALLENGE : null,
          body: { errors: outcome.code },
        };
      }
      return { status: outcome.status, challenge: null, body: expect.anything() };
    }
    if (outcome.kind === 'refused') {
      const { operation, field } = c.capability.graphql;
      const root = {
        query: sdl.getQueryType(),
        mutation: sdl.getMutationType(),
        subscription: sdl.getSubscriptionType(),
      }[operation];
      // An error nulls the nearest nullable field: the data itself, or a nullable root field.
      const nullable = !isNonNullType(root?.getFields()[field]?.type);
      return {
        errors: [
          expect.objectContaining({
            extensions: { code: outcome.category, reason: outcome.code },
          }),
        ],
        data: nullable ? { [field]: null } : null,
      };
    }
    return {
      errors: null,
      data: { [c.capability.graphql.field]: expect.anything() },
    };
  }

  const byEndpoint = new Map<string, Case[]>();
  for (const c of cases) {
    const key = `${c.face} ${c.endpoint}`;
    byEndpoint.set(key, [...(byEndpoint.get(key) ?? []), c]);
  }

  for (const [endpoint, endpointCases] of byEndpoint) {
    describe(endpoint.replace(/^REST (\S+) /, 'REST $1 /api/v1'), () => {
      it.each(endpointCases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
        counter += 1;
        const meeting = await freshMeeting(world);
        let session: Promise<string> | undefined;
        const scene: Scene = {
          world,
          meeting,
          guest,
          target,
          refreshToken,
          session: () => (session ??= signIn(world, target)),
          n: counter,
        };
        await c.capability.prepare?.(scene);
        const countsBefore = await rowCounts(world.t);
        const before = await meetingState(world.t, meeting.id);
        const { outcome, root } = await perform(c, scene);
        const after = await meetingState(world.t, meeting.id);
        expect(outcome).toEqual(expected(c));
        if (c.outcome.kind === 'refused') {
          // A refused call changes nothing: not the meeting, not any table.
          expect(after).toEqual(before);
          expect(await rowCounts(world.t)).toEqual(countsBefore);
          return;
        }
        const user = userOf(c.caller);
        await c.outcome.check?.({
          caller: c.caller,
          user,
          root: root as CheckContext['root'],
          scene,
          before,
          after,
          face: c.face,
        });
      });
    });
  }
});

/*
 * Nested reachability: every path of the schema from a root field to a Meeting or a Participant,
 * called by a stranger who is entangled with the hidden meeting's people in every way the API
 * allows (follows both ways, shares other meetings with them, is invited by the same owner).
 */

interface Hop {
  parent: string;
  field: GraphQLField<unknown, unknown>;
}

interface NestedPath {
  operation: 'query' | 'mutation';
  hops: Hop[];
}

const TARGET_TYPES = new Set(['Meeting', 'Participant']);

/** How many records a probe asks of each list that takes a size. */
const PROBE_SLICE = 5;

/** Every path from a root field that ends on a Meeting or Participant, each edge used once. */
function pathsToMeetings(schema: GraphQLSchema): NestedPath[] {
  const found: NestedPath[] = [];
  const walk = (
    operation: NestedPath['operation'],
    type: GraphQLObjectType,
    hops: Hop[],
    used: Set<string>,
  ) => {
    for (const field of Object.values(type.getFields())) {
      const edge = `${type.name}.${field.name}`;
      const named = getNamedType(field.type);
      if (used.has(edge) || !isObjectType(named)) {
        continue;
      }
      const next = [...hops, { parent: type.name, field }];
      if (TARGET_TYPES.has(named.name)) {
        found.push({ operation, hops: next });
      }
      walk(operation, named, next, new Set([...used, edge]));
    }
  };
  const query = schema.getQueryType();
  const mutation = schema.getMutationType();
  if (query) {
    walk('query', query, [], new Set());
  }
  if (mutation) {
    walk('mutation', mutation, [], new Set());
  }
  return found;
}

const describePath = (path: NestedPath): string =>
  `${path.operation} ${path.hops.map((hop) => hop.field.name).join('.')}`;

const nestedPaths = pathsToMeetings(sdl);

/** What a probe must give of some arguments or input fields: the non-null ones without default. */
function requiredOf<T extends { type: GraphQLInputType; defaultValue?: unknown }>(
  fields: readonly T[],
): T[] {
  return fields.filter((field) => isNonNullType(field.type) && field.defaultValue === undefined);
}

/**
 * Whether an argument names a meeting: it is `meetingId`, or an input object whose required
 * fields (those a probe gives) name one, however deep (`input: { meetingId }`).
 */
function namesMeeting(arg: { name: string; type: GraphQLInputType }): boolean {
  const named = getNamedType(arg.type);
  return (
    arg.name === 'meetingId' ||
    (isInputObjectType(named) && requiredOf(Object.values(named.getFields())).some(namesMeeting))
  );
}

describe('nested reachability of a hidden meeting', () => {
  let world: World;
  let hidden: SeededMeeting;
  let hiddenParticipantIds: string[];
  let shared: SeededMeeting;
  let probeRoom: string;
  const hiddenTitle = `Hidden summit ${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    world = await startWorld();
    const { stranger, owner, participant } = world.users;
    hidden = await world.t.seed.meeting(owner).titled(hiddenTitle).inviting(participant).create();
    hiddenParticipantIds = (await meetingState(world.t, hidden.id)).participants.map((p) => p.id);
    probeRoom = (
      await world.t.gql.data<{ createResource: { resource: { id: string } } }>(
        'mutation { createResource(input: { name: "Probe room", capacity: 4 }) { resource { id } } }',
        {},
        world.users.admin.token,
      )
    ).createResource.resource.id;
    // Everything the stranger may legitimately reach shares users with the hidden meeting.
    shared = await world.t.seed
      .meeting(owner)
      .titled('Shared planning')
      .inviting(stranger, participant)
      .create();
    await world.t.seed
      .meeting(stranger)
      .titled('Stranger sync')
      .inviting(owner, participant)
      .create();
    const FOLLOW =
      'mutation ($userId: UUID!) { follow(input: { userId: $userId }) { follow { id } } }';
    for (const [from, to] of [
      [stranger, owner],
      [stranger, participant],
      [owner, stranger],
      [participant, stranger],
    ] as const) {
      await world.t.gql.data(FOLLOW, { userId: to.id }, from.token);
    }
    console.log(
      `nested reachability: ${nestedPaths.length} paths from a root field to Meeting or Participant`,
    );
  });
  afterAll(() => world.t.close());

  it('finds every root field that returns a Meeting or a Participant', () => {
    const roots = [...new Set(nestedPaths.map((p) => `${p.operation} ${p.hops[0]?.field.name}`))];
    expect(roots.sort()).toEqual([
      'mutation addParticipant',
      'mutation addResource',
      'mutation approveMeeting',
      'mutation cancelMeeting',
      'mutation cancelOccurrence',
      'mutation completeMeeting',
      'mutation createMeeting',
      'mutation declineMeeting',
      'mutation leaveMeeting',
      'mutation moveOccurrence',
      'mutation removeParticipant',
      'mutation removeResource',
      'mutation rescheduleMeeting',
      'mutation updateMeeting',
      'query invitations',
      'query meeting',
      'query meetingRequests',
      'query meetings',
      'query myMeetingEvents',
      'query myMeetings',
    ]);
    // User, Follow, FollowPage, UserPage, ...: no field leads back to a meeting.
    const holders = Object.values(sdl.getTypeMap())
      .filter((type): type is GraphQLObjectType => isObjectType(type))
      .filter((type) =>
        Object.values(type.getFields()).some((field) =>
          TARGET_TYPES.has(getNamedType(field.type).name),
        ),
      )
      .map((type) => type.name);
    expect(holders.sort()).toEqual([
      'AddParticipantPayload',
      'AddResourcePayload',
      'ApproveMeetingPayload',
      'CancelMeetingPayload',
      'CancelOccurrencePayload',
      'CompleteMeetingPayload',
      'CreateMeetingPayload',
      'DeclineMeetingPayload',
      'LeaveMeetingPayload',
      'Meeting',
      'MeetingConnection',
      'MeetingEdge',
      // Events: what reaches whom is tested over WebSocket (the matrix rows of
      // matrix-subscription-rows.ts and test/subscriptions/), and by the query's probes here.
      'MeetingEvent',
      'MoveOccurrencePayload',
      'Participant',
      'ParticipantConnection',
      'ParticipantEdge',
      'Query',
      'RemoveParticipantPayload',
      'RemoveResourcePayload',
      'RescheduleMeetingPayload',
      'Subscription',
      'UpdateMeetingPayload',
    ]);
    expect(nestedPaths.map(describePath)).toEqual(
      expect.arrayContaining([
        'query meetingRequests.meeting.participants',
        'query meeting.participants.meeting',
        'mutation addParticipant.participant.meeting.participants',
        'mutation updateMeeting.meeting.participants',
        'mutation leaveMeeting.meeting.participants.meeting',
      ]),
    );
  });

  /**
   * Values for the root arguments: every id argument names the hidden meeting or its owner. An
   * argument with no value of its own name that takes an input object gets one built from that
   * type's required fields, each valued by the same rule (`input: { meetingId, userId, ... }`).
   */
  function argumentValue(world: World, name: string, type: GraphQLInputType): unknown {
    const { owner, participant } = world.users;
    const values: Record<string, unknown> = {
      meetingId: hidden.id,
      userId: owner.id,
      account: owner.account,
      q: owner.account,
      meeting: { title: 'Stranger probe', startTime: inHours(40), location: 'Probe room 1' },
      participants: [{ userId: participant.id }],
      startTime: inHours(50),
      originalStartTime: inHours(24),
      // A room that exists: the meeting, not the room, is what the stranger must not find.
      resourceId: probeRoom,
    };
    if (name in values) {
      return values[name];
    }
    const named = getNamedType(type);
    if (isInputObjectType(named) && !isListType(getNullableType(type))) {
      return Object.fromEntries(
        requiredOf(Object.values(named.getFields())).map((field) => [
          field.name,
          argumentValue(world, field.name, field.type),
        ]),
      );
    }
    throw new Error(`no probe value for argument ${name}: ${String(type)}`);
  }

  /**
   * Small slices on every list that takes a size (`first` or `limit`): nested lists multiply, and
   * the service refuses operations that could answer too many records (QUERY_TOO_LARGE).
   */
  function sliceArgument(args: readonly { name: string }[]): string | null {
    const size = args.find((arg) => arg.name === 'first' || arg.name === 'limit');
    return size ? `${size.name}: ${PROBE_SLICE}` : null;
  }

  function probe(path: NestedPath): { query: string; variables: Record<string, unknown> } {
    const [root, ...rest] = path.hops;
    if (!root) {
      throw new Error('empty path');
    }
    const last = path.hops[path.hops.length - 1] ?? root;
    // The target names its type too, so a probe that reached meetings shows it.
    let selection =
      getNamedType(last.field.type).name === 'Meeting'
        ? '__typename id title ownerId'
        : '__typename id meetingId userId';
    for (const hop of [...rest].reverse()) {
      const size = sliceArgument(hop.field.args);
      selection = `__typename ${hop.field.name}${size ? `(${size})` : ''} { ${selection} }`;
    }
    const required = requiredOf(root.field.args);
    const variables = Object.fromEntries(
      required.map((arg) => [arg.name, argumentValue(world, arg.name, arg.type)]),
    );
    const definitions = required.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
    const args = [
      ...required.map((arg) => `${arg.name}: $${arg.name}`),
      ...[sliceArgument(root.field.args)].filter((size): size is string => size !== null),
    ].join(', ');
    const query = `${path.operation} Probe${definitions ? `(${definitions})` : ''} {
      ${root.field.name}${args ? `(${args})` : ''} { __typename ${selection} }
    }`;
    return { query, variables };
  }

  it.each(nestedPaths.map((path) => [describePath(path), path] as const))(
    'a stranger reaches nothing of a hidden meeting through %s',
    async (_name, path) => {
      const before = await meetingState(world.t, hidden.id);
      const { query, variables } = probe(path);
      const result = await world.t.gql.request(query, variables, world.users.stranger.token);
      const text = JSON.stringify(result);
      expect(text).not.toContain(hidden.id);
      expect(text).not.toContain(hiddenTitle);
      for (const id of hiddenParticipantIds) {
        expect(text).not.toContain(id);
      }
      if (path.hops[0]?.field.args.some(namesMeeting)) {
        expect(result.errors?.[0]?.extensions).toEqual({
          code: 'NOT_FOUND',
          reason: 'MEETING_NOT_FOUND',
        });
        expect(result.data ?? null).toBeNull();
      } else {
        // The probe did reach meetings, just not the hidden one.
        expect(result.errors).toBeUndefined();
        expect(text).toMatch(/"__typename":"(Meeting|Participant)"/);
      }
      expect(await meetingState(world.t, hidden.id)).toEqual(before);
    },
  );

  it('a stranger reaches the meetings they share with the same people (the probes are not empty)', async () => {
    const result = await world.t.gql.data<{
      meetingRequests: Array<{ meeting: { id: string; participants: Array<{ userId: string }> } }>;
    }>(
      '{ meetingRequests { meeting { id participants { userId meeting { id } } } } }',
      {},
      world.users.stranger.token,
    );
    expect(result.meetingRequests.map((r) => r.meeting.id)).toEqual([shared.id]);
  });

  it('an aliased read of a visible and a hidden meeting yields nothing of the hidden one', async () => {
    const result = await world.t.gql.request(
      `query ($visible: UUID!, $hidden: UUID!) {
        a: meeting(meetingId: $visible) { id title participants { id meeting { id title } } }
        b: meeting(meetingId: $hidden) { id title participants { id meeting { id title } } }
      }`,
      { visible: shared.id, hidden: hidden.id },
      world.users.stranger.token,
    );
    const text = JSON.stringify(result);
    expect(text).not.toContain(hidden.id);
    expect(text).not.toContain(hiddenTitle);
    expect(result.errors?.map((e) => e.extensions)).toEqual([
      { code: 'NOT_FOUND', reason: 'MEETING_NOT_FOUND' },
    ]);
  });

  describe('existence is not revealed to a stranger', () => {
    let cancelled: SeededMeeting;

    beforeAll(async () => {
      const { owner, participant } = world.users;
      cancelled = await world.t.seed.meeting(owner).inviting(participant).create();
      await world.t.gql.data(
        'mutation ($id: UUID!) { declineMeeting(input: { meetingId: $id }) { meeting { status } } }',
        { id: cancelled.id },
        participant.token,
      );
    });

    const restProbes: Array<[string, string, (id: string) => string, boolean]> = [
      ['reads', 'GET', (id) => `/meeting/${id}`, false],
      ['adds to', 'POST', (id) => `/meeting/${id}/participants/add`, true],
      ['approves', 'POST', (id) => `/meeting/${id}/approve`, false],
      ['declines', 'POST', (id) => `/meeting/${id}/decline`, false],
    ];

    it.each(restProbes)(
      'a stranger who %s a hidden, a cancelled hidden and an unknown meeting gets the same 404 (REST)',
      async (_verb, method, path, withBody) => {
        const { stranger, participant } = world.users;
        const answers = [];
        for (const id of [hidden.id, cancelled.id, UNKNOWN_ID]) {
          const body: RestBody | undefined = withBody
            ? { json: { user_id: participant.id } }
            : undefined;
          const response = await world.rest.request(method, path(id), body, {
            token: stranger.token,
          });
          answers.push(restOutcome(response));
        }
        expect(answers).toEqual(
          Array(3).fill({ status: 404, challenge: null, body: { errors: 'MEETING_NOT_FOUND' } }),
        );
      },
    );

    /** The variables of a probe of a meeting; by default `meetingId`, and `userId` when asked for. */
    type ProbeVariables = (meetingId: string, userId: string) => Record<string, unknown>;
    /** A lifecycle mutation's probe: its one `input` object (docs/rest-contract.md §7). */
    const lifecycleProbe = (
      field: string,
      inputType: string,
      input: ProbeVariables = (meetingId) => ({ meetingId }),
    ): [string, ProbeVariables] => [
      `mutation ($input: ${inputType}!) { ${field}(input: $input) { meeting { id } } }`,
      (meetingId, userId) => ({ input: input(meetingId, userId) }),
    ];

    const graphqlProbes: Array<[string, string, ProbeVariables?]> = [
      ['reads', `query (${MEETING_ID}) { meeting(meetingId: $meetingId) { id } }`],
      [
        'adds to',
        `mutation (${MEETING_ID}, $userId: UUID!) {
          addParticipant(input: { meetingId: $meetingId, userId: $userId }) { participant { id } }
        }`,
      ],
      [
        'approves',
        `mutation (${MEETING_ID}) { approveMeeting(input: { meetingId: $meetingId }) { meeting { id } } }`,
      ],
      [
        'declines',
        `mutation (${MEETING_ID}) { declineMeeting(input: { meetingId: $meetingId }) { meeting { id } } }`,
      ],
      [
        'edits',
        ...lifecycleProbe('updateMeeting', 'UpdateMeetingInput', (meetingId) => ({
          meetingId,
          title: 'Stranger edit',
        })),
      ],
      [
        'reschedules',
        ...lifecycleProbe('rescheduleMeeting', 'RescheduleMeetingInput', (meetingId) => ({
          meetingId,
          startTime: inHours(50),
        })),
      ],
      ['cancels', ...lifecycleProbe('cancelMeeting', 'CancelMeetingInput')],
      ['completes', ...lifecycleProbe('completeMeeting', 'CompleteMeetingInput')],
      [
        'removes a participant from',
        ...lifecycleProbe('removeParticipant', 'RemoveParticipantInput', (meetingId, userId) => ({
          meetingId,
          userId,
        })),
      ],
      ['leaves', ...lifecycleProbe('leaveMeeting', 'LeaveMeetingInput')],
    ];

    /** The meeting's arguments, as the probes of meetingId (and userId) have always sent them. */
    const byArguments =
      (query: string): ProbeVariables =>
      (meetingId, userId) =>
        query.includes('$userId') ? { meetingId, userId } : { meetingId };

    // Every row gets its variables, so no row is shorter than the test's parameters (jest would
    // pass its `done` callback in the missing place).
    it.each(
      graphqlProbes.map(
        ([verb, query, variablesOf]) => [verb, query, variablesOf ?? byArguments(query)] as const,
      ),
    )(
      'a stranger who %s a hidden, a cancelled hidden and an unknown meeting gets the same NOT_FOUND (GraphQL)',
      async (_verb, query, variablesOf) => {
        const { stranger, participant } = world.users;
        const answers = [];
        for (const meetingId of [hidden.id, cancelled.id, UNKNOWN_ID]) {
          const result = await world.t.gql.request(
            query,
            variablesOf(meetingId, participant.id),
            stranger.token,
          );
          answers.push({ data: result.data, codes: result.errors?.map((e) => e.extensions) });
        }
        expect(answers).toEqual(
          Array(3).fill({
            data: null,
            codes: [{ code: 'NOT_FOUND', reason: 'MEETING_NOT_FOUND' }],
          }),
        );
      },
    );
  });
});
