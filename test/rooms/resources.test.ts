import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';
import { type Room, ROOM_FIELDS, Rooms } from './rooms-fixtures';

const LIST = `query ($filter: ResourceFilterInput, $first: Int, $after: String) {
  resources(filter: $filter, first: $first, after: $after) {
    edges { cursor node { id name } }
    nodes { id name capacity building features }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount
  }
}`;
const UPDATE = `mutation ($input: UpdateResourceInput!) { updateResource(input: $input) { resource { ${ROOM_FIELDS} } } }`;
const DELETE = `mutation ($input: DeleteResourceInput!) { deleteResource(input: $input) { resource { id name } } }`;
const NODE = `query ($id: ID!) { node(id: $id) { id ... on Resource { name capacity } } }`;

interface Listed {
  edges: Array<{ cursor: string; node: { id: string; name: string } }>;
  nodes: Array<{
    id: string;
    name: string;
    capacity: number;
    building: string | null;
    features: string[];
  }>;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
  totalCount: number;
}

describe('rooms and other resources', () => {
  const t = useTestApp();
  let rooms: Rooms;
  let ada: SeededUser;

  beforeAll(async () => {
    rooms = await Rooms.of(t);
    ada = await t.seed.user();
  });

  const list = async (user: SeededUser, variables: Record<string, unknown>) =>
    (await t.gql.data<{ resources: Listed }>(LIST, variables, user.token)).resources;

  it('are made by admins, with their fields stored as given (trimmed, features lower-cased and sorted)', async () => {
    const room = await rooms.room({
      name: '  Atrium  ',
      capacity: 12,
      building: 'North',
      floor: '2',
      features: ['Whiteboard', 'projector', 'whiteboard '],
      timeZone: 'Europe/Berlin',
      workingHours: [
        { weekday: 'TU', start: '08:00', end: '18:00' },
        { weekday: 'MO', start: '08:00', end: '18:00' },
      ],
    });
    expect(room).toEqual({
      id: expect.any(String),
      name: 'Atrium',
      capacity: 12,
      building: 'North',
      floor: '2',
      features: ['projector', 'whiteboard'],
      timeZone: 'Europe/Berlin',
      workingHours: [
        { weekday: 'MO', start: '08:00', end: '18:00' },
        { weekday: 'TU', start: '08:00', end: '18:00' },
      ],
    });
    const shown = await t.gql.data<{ node: Room }>(NODE, { id: room.id }, ada.token);
    expect(shown.node).toEqual({ id: room.id, name: 'Atrium', capacity: 12 });
  });

  it('are refused to anyone but an admin: FORBIDDEN, and nothing made', async () => {
    const before = (await list(ada, {})).totalCount;
    const refused = await rooms.createRoom({ name: 'Not mine', capacity: 3 }, ada);
    expect(refused.errors?.[0]?.extensions).toEqual({
      code: 'FORBIDDEN',
      reason: 'ONLY_ADMINS_MANAGE_RESOURCES',
    });
    const room = await rooms.room({ name: 'Kept room', capacity: 3 });
    for (const [query, input] of [
      [UPDATE, { resourceId: room.id, name: 'Taken over' }],
      [DELETE, { resourceId: room.id }],
    ] as const) {
      expect((await t.gql.error(query, { input }, ada.token)).extensions).toMatchObject({
        code: 'FORBIDDEN',
      });
    }
    expect((await list(ada, {})).totalCount).toBe(before + 1);
    expect((await t.gql.error(LIST, {})).extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('refuses bad input field by field', async () => {
    const refused = await rooms.createRoom(
      {
        name: ' ',
        capacity: 0,
        building: 'b'.repeat(101),
        features: ['x'.repeat(41)],
        timeZone: 'Mars/Olympus',
        workingHours: [{ weekday: 'MO', start: '10:00', end: '09:00' }],
      },
      rooms.admin,
    );
    expect(refused.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
      fields: {
        name: 'REQUIRED',
        capacity: 'TOO_SMALL',
        building: 'TOO_LONG',
        features: 'TOO_LONG',
        timeZone: 'INVALID_TIME_ZONE',
        'workingHours.0.end': 'TOO_SMALL',
      },
    });
  });

  it('are changed and deleted by admins; an unknown one is RESOURCE_NOT_FOUND', async () => {
    const room = await rooms.room({ name: 'Old name', capacity: 5, building: 'East' });
    const updated = await t.gql.data<{ updateResource: { resource: Room } }>(
      UPDATE,
      { input: { resourceId: room.id, name: 'New name', building: null, features: ['tv'] } },
      rooms.admin.token,
    );
    expect(updated.updateResource.resource).toEqual({
      ...room,
      name: 'New name',
      building: null,
      features: ['tv'],
    });
    await t.gql.data(DELETE, { input: { resourceId: room.id } }, rooms.admin.token);
    const gone = await t.gql.error(DELETE, { input: { resourceId: room.id } }, rooms.admin.token);
    expect(gone.extensions).toMatchObject({ code: 'NOT_FOUND', reason: 'RESOURCE_NOT_FOUND' });
  });

  it('are listed to everyone signed in by name, filtered and in slices', async () => {
    const mark = `Z${Date.now()}`;
    const made = [];
    for (const [i, capacity] of [4, 8, 10, 20, 6].entries()) {
      made.push(
        await rooms.room({
          name: `${mark} room ${i}`,
          capacity,
          building: i % 2 === 0 ? 'South' : 'West',
          features: i < 3 ? ['video', 'whiteboard'] : ['video'],
        }),
      );
    }
    const fitting = await list(ada, {
      filter: { minCapacity: 8, building: 'south', features: ['Video', 'whiteboard'] },
    });
    expect(fitting.nodes.filter((r) => r.name.startsWith(mark)).map((r) => r.name)).toEqual([
      `${mark} room 2`,
    ]);

    const all = await list(ada, { filter: { features: ['video'] }, first: 100 });
    const mine = all.nodes.filter((r) => r.name.startsWith(mark)).map((r) => r.name);
    expect(mine).toEqual(made.map((r) => r.name));

    const first = await list(ada, { filter: { building: 'South' }, first: 2 });
    expect(first.nodes).toHaveLength(2);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(first.edges.map((e) => e.node.id)).toEqual(first.nodes.map((n) => n.id));
    const rest = await list(ada, {
      filter: { building: 'South' },
      first: 100,
      after: first.pageInfo.endCursor,
    });
    expect(rest.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect([...first.nodes, ...rest.nodes].map((r) => r.id)).toHaveLength(first.totalCount);
    expect(new Set([...first.nodes, ...rest.nodes].map((r) => r.building))).toEqual(
      new Set(['South']),
    );
  });
});
