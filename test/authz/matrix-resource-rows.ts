import type { World } from './authz-fixtures';
import {
  allowed,
  type Capability,
  forMembers,
  MEETING_HIDDEN,
  NOT_AUTHENTICATED,
  type Outcome,
  refused,
  type Scene,
} from './matrix-capability';

/*
 * The authorization matrix's rows for rooms and other resources (issue 41), GraphQL only.
 * Everyone signed in lists them; admins (and superusers) make, change and delete them; the owner
 * of a meeting (or an admin) books them for it, anyone else who sees the meeting is refused and
 * to anyone else the meeting does not exist.
 */

const ADMINS_ONLY = refused(403, 'ONLY_ADMINS_MANAGE_RESOURCES', 'FORBIDDEN');
const ONLY_OWNER_BOOKS = refused(403, 'ONLY_MEETING_OWNER_CAN_BOOK', 'FORBIDDEN');
const CREATE = `mutation ($input: CreateResourceInput!) {
  createResource(input: $input) { resource { id name capacity } }
}`;
const ADD = `mutation ($meetingId: UUID!, $resourceId: UUID!) {
  addResource(input: { meetingId: $meetingId, resourceId: $resourceId }) { meeting { id resources { id } } }
}`;

async function newRoom(world: World, n: number): Promise<string> {
  const data = await world.t.gql.data<{ createResource: { resource: { id: string } } }>(
    CREATE,
    { input: { name: `Matrix room ${n}`, capacity: 4 } },
    world.users.admin.token,
  );
  return data.createResource.resource.id;
}

/** A room for each case, made by the admin before the case's state is taken. */
const perCase = new Map<number, Promise<string>>();
const caseRoom = (scene: Scene): Promise<string> => {
  let room = perCase.get(scene.n);
  if (!room) {
    room = newRoom(scene.world, scene.n);
    perCase.set(scene.n, room);
  }
  return room;
};

/** Admins and superusers get `outcome`; other members are refused. */
const adminsOnly = (outcome: Outcome): Capability['outcomes'] =>
  forMembers(ADMINS_ONLY, { admin: outcome, superuser: outcome, anonymous: NOT_AUTHENTICATED });

/** Those who manage the meeting get `outcome`; a participant is refused, a stranger sees none. */
const managersOfMeeting = (outcome: Outcome): Capability['outcomes'] =>
  forMembers(outcome, {
    stranger: MEETING_HIDDEN,
    participant: ONLY_OWNER_BOOKS,
  });

export const resourceCapabilities: Capability[] = [
  {
    action: 'list rooms and other resources',
    rest: [],
    graphql: { operation: 'query', field: 'resources' },
    restCall: () => ({}),
    prepare: async (s) => {
      await caseRoom(s);
    },
    graphqlCall: () => ({ query: 'query { resources(first: 100) { nodes { id } totalCount } }' }),
    outcomes: forMembers(
      allowed(200, async ({ root, scene }) => {
        const ids = (root['nodes'] as Array<{ id: string }>).map((room) => room.id);
        expect(root['totalCount']).toBeGreaterThan(0);
        expect(ids.length).toBeGreaterThan(0);
        expect(typeof (await caseRoom(scene))).toBe('string');
      }),
    ),
  },
  {
    action: 'make a resource',
    rest: [],
    graphql: { operation: 'mutation', field: 'createResource' },
    restCall: () => ({}),
    graphqlCall: (s) => ({
      query: CREATE,
      variables: { input: { name: `Made ${s.n}`, capacity: 2 } },
    }),
    outcomes: adminsOnly(
      allowed(200, ({ root, scene }) =>
        expect(root).toEqual({
          resource: { id: expect.any(String), name: `Made ${scene.n}`, capacity: 2 },
        }),
      ),
    ),
  },
  {
    action: 'change a resource',
    rest: [],
    graphql: { operation: 'mutation', field: 'updateResource' },
    restCall: () => ({}),
    prepare: async (s) => {
      await caseRoom(s);
    },
    graphqlCall: async (s) => ({
      query: `mutation ($input: UpdateResourceInput!) { updateResource(input: $input) { resource { id capacity } } }`,
      variables: { input: { resourceId: await caseRoom(s), capacity: 9 } },
    }),
    outcomes: adminsOnly(
      allowed(200, async ({ root, scene }) =>
        expect(root).toEqual({ resource: { id: await caseRoom(scene), capacity: 9 } }),
      ),
    ),
  },
  {
    action: 'delete a resource',
    rest: [],
    graphql: { operation: 'mutation', field: 'deleteResource' },
    restCall: () => ({}),
    prepare: async (s) => {
      await caseRoom(s);
    },
    graphqlCall: async (s) => ({
      query: `mutation ($input: DeleteResourceInput!) { deleteResource(input: $input) { resource { id } } }`,
      variables: { input: { resourceId: await caseRoom(s) } },
    }),
    outcomes: adminsOnly(
      allowed(200, async ({ root, scene }) =>
        expect(root).toEqual({ resource: { id: await caseRoom(scene) } }),
      ),
    ),
  },
  {
    action: 'book a room for the meeting',
    rest: [],
    graphql: { operation: 'mutation', field: 'addResource' },
    restCall: () => ({}),
    prepare: async (s) => {
      await caseRoom(s);
    },
    graphqlCall: async (s) => ({
      query: ADD,
      variables: { meetingId: s.meeting.id, resourceId: await caseRoom(s) },
    }),
    outcomes: managersOfMeeting(
      allowed(200, async ({ root, scene }) =>
        expect(root).toEqual({
          meeting: { id: scene.meeting.id, resources: [{ id: await caseRoom(scene) }] },
        }),
      ),
    ),
  },
  {
    action: "free the meeting's room",
    rest: [],
    graphql: { operation: 'mutation', field: 'removeResource' },
    restCall: () => ({}),
    prepare: async (s) => {
      await s.world.t.gql.data(
        ADD,
        { meetingId: s.meeting.id, resourceId: await caseRoom(s) },
        s.world.users.owner.token,
      );
    },
    graphqlCall: async (s) => ({
      query: `mutation ($meetingId: UUID!, $resourceId: UUID!) {
        removeResource(input: { meetingId: $meetingId, resourceId: $resourceId }) { meeting { id resources { id } } }
      }`,
      variables: { meetingId: s.meeting.id, resourceId: await caseRoom(s) },
    }),
    outcomes: managersOfMeeting(
      allowed(200, ({ root, scene }) =>
        expect(root).toEqual({ meeting: { id: scene.meeting.id, resources: [] } }),
      ),
    ),
  },
];
