import {
  getNamedType,
  type GraphQLNamedType,
  type GraphQLSchema,
  isInputObjectType,
  isObjectType,
} from 'graphql';
import { Meeting } from '../../src/modules/meeting/meeting.entity';
import { Participant } from '../../src/modules/meeting/participants/participant.entity';
import { User } from '../../src/modules/user/user.entity';
import type { RestBody } from '../helpers/rest-client';
import type { SeededMeeting, SeededUser } from '../helpers/seed';
import {
  camelize,
  inHours,
  meetingState,
  type MeetingState,
  restOutcome,
  rowCounts,
  startWorld,
  type World,
} from './authz-fixtures';

/** Ids a client might try to choose for a record. */
const CHOSEN_ID = '11111111-1111-4111-8111-111111111111';
const CHOSEN_ID_2 = '22222222-2222-4222-8222-222222222222';
const LONG_AGO = '2001-02-03T04:05:06.000Z';

/** Names no client-writable argument or input field may have (compared without case or `_`). */
const PRIVILEGED_NAMES = [
  'roles',
  'role',
  'isSuperuser',
  'isActive',
  'isVerified',
  'emailVerified',
  'isAdmin',
  'id',
  'ownerId',
  'owner',
  'createdAt',
  'updatedAt',
  'deletedAt',
  'passwordHash',
];
const normal = (name: string): string => name.replace(/_/g, '').toLowerCase();

/** Every argument of every root field and every field of every input type, as `Where.name`. */
function writableNames(schema: GraphQLSchema): string[] {
  const names: string[] = [];
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      for (const arg of field.args) {
        names.push(`${root?.name}.${field.name}(${arg.name})`);
      }
    }
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (isInputObjectType(type) && !type.name.startsWith('__')) {
      for (const field of Object.values(type.getFields())) {
        names.push(`${type.name}.${field.name}`);
      }
    }
  }
  return names.sort();
}

/**
 * Reads that name the object they read by its id, as Relay's refetch requires (`node(id: ID!)`):
 * nothing is written through them.
 */
const LOOKUPS_BY_ID = new Set(['Query.node(id)']);

const lastName = (where: string): string => /([A-Za-z_]+)\)?$/.exec(where)?.[1] ?? where;

describe('mass assignment', () => {
  let world: World;

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.t.close());

  describe('the GraphQL schema offers no privileged input', () => {
    it('no root-field argument and no input field is named like a privilege, an id or a timestamp', () => {
      const names = writableNames(world.t.instance.schema);
      expect(names.length).toBeGreaterThan(20);
      const forbidden = new Set(PRIVILEGED_NAMES.map(normal));
      expect(
        names.filter(
          (where) => forbidden.has(normal(lastName(where))) && !LOOKUPS_BY_ID.has(where),
        ),
      ).toEqual([]);
    });

    it('a status can be chosen only for an invited participant (by the inviting owner)', () => {
      const names = writableNames(world.t.instance.schema);
      expect(names.filter((where) => /status/i.test(lastName(where)))).toEqual([
        'AddParticipantInput.status',
        'ParticipantInput.status',
      ]);
    });

    /** The fields of the one input object a mutation takes (`input`). */
    const inputFieldsOf = (name: string): string[] => {
      const field = world.t.instance.schema.getMutationType()?.getFields()[name];
      expect(field?.args.map((arg) => arg.name)).toEqual(['input']);
      const input = getNamedType(field?.args[0]?.type);
      return isInputObjectType(input) ? Object.keys(input.getFields()) : [];
    };

    it('register takes exactly the five documented fields, and only the own-account mutations answer a User', () => {
      expect(inputFieldsOf('register').sort()).toEqual(
        ['account', 'email', 'name', 'password', 'passwordConfirm'].sort(),
      );
      const mutation = world.t.instance.schema.getMutationType();
      // A User as the answer, or in the answer's payload.
      const answersUser = (type: GraphQLNamedType | undefined): boolean =>
        type?.name === 'User' ||
        (isObjectType(type) &&
          type.name.endsWith('Payload') &&
          Object.values(type.getFields()).some((f) => getNamedType(f.type).name === 'User'));
      const returningUsers = Object.values(mutation?.getFields() ?? {})
        .filter((field) => answersUser(getNamedType(field.type)))
        .map((field) => field.name);
      expect(returningUsers.sort()).toEqual(['changePassword', 'register', 'updateProfile']);
    });

    it('approve and decline name only the meeting: never whose answer changes', () => {
      for (const name of ['approveMeeting', 'declineMeeting']) {
        expect(inputFieldsOf(name)).toEqual(['meetingId']);
      }
    });
  });

  describe('registration never grants privileges', () => {
    let counter = 0;
    const fresh = () => {
      counter += 1;
      const account = `mass.${counter}${Math.random().toString(36).slice(2, 6)}`;
      return {
        name: `Mass Assigner ${counter}`,
        account,
        email: `${account}@example.com`,
        password: 'Assign-Nothing-42',
        password_confirm: 'Assign-Nothing-42',
      };
    };

    /** Privileged fields as a client would smuggle them, snake_case and camelCase. */
    const smuggled = (typed: boolean): Record<string, unknown> => ({
      roles: 'admin',
      role: 'admin',
      is_superuser: typed ? true : 'true',
      isSuperuser: typed ? true : 'true',
      is_active: typed ? false : 'false',
      isActive: typed ? false : 'false',
      is_verified: typed ? false : 'false',
      email_verified: typed ? true : 'true',
      emailVerified: typed ? true : 'true',
      id: CHOSEN_ID,
      owner_id: CHOSEN_ID_2,
      created_at: LONG_AGO,
      createdAt: LONG_AGO,
      updated_at: LONG_AGO,
      deleted_at: '2020-01-01',
      password_hash: '$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
      bio: 'injected biography',
      phone: '+15550100',
      avatar_photo_id: CHOSEN_ID_2,
    });

    const encodings: Array<[string, (fields: Record<string, unknown>) => RestBody, boolean]> = [
      ['JSON', (fields) => ({ json: fields }), true],
      ['a form', (fields) => ({ form: fields as Record<string, string> }), false],
      ['multipart', (fields) => ({ multipart: fields as Record<string, string> }), false],
    ];

    it.each(encodings)(
      'a registration in %s that sends roles, is_superuser, is_active, id, owner_id, created_at gets none of them',
      async (_encoding, encode, typed) => {
        const input = fresh();
        const response = await world.rest.post<Record<string, unknown>>(
          '/auth/register',
          encode({ ...input, ...smuggled(typed) }),
        );
        expect(response.status).toBe(201);
        const since = Date.now() - 60_000;
        expect(response.body).toMatchObject({
          account: input.account,
          roles: 'user',
          is_superuser: false,
          is_active: true,
          is_verified: true,
          deleted_at: null,
          bio: null,
          phone: null,
          avatar_photo_id: null,
        });
        expect(response.body['id']).not.toBe(CHOSEN_ID);
        expect(Date.parse(String(response.body['created_at']))).toBeGreaterThan(since);

        const stored = await world.t.instance.database.orm.em
          .fork()
          .findOneOrFail(User, { account: input.account });
        expect({
          id: stored.id,
          roles: stored.roles,
          isSuperuser: stored.isSuperuser,
          isActive: stored.isActive,
          isVerified: stored.isVerified,
          emailVerified: stored.emailVerified,
          deletedAt: stored.deletedAt,
          bio: stored.bio,
        }).toEqual({
          id: response.body['id'],
          roles: 'user',
          isSuperuser: false,
          isActive: true,
          isVerified: true,
          emailVerified: false,
          deletedAt: null,
          bio: null,
        });
        expect(stored.createdAt.getTime()).toBeGreaterThan(since);
        expect(await world.t.instance.database.orm.em.fork().count(User, { id: CHOSEN_ID })).toBe(
          0,
        );

        // The password given is the one that works; the smuggled hash is not.
        const login = await world.rest.post<{ access_token: string }>('/auth/login', {
          json: { email: input.email, password: input.password },
        });
        expect(login.status).toBe(200);
        const me = await world.rest.get<Record<string, unknown>>('/user/me', {
          token: login.body.access_token,
        });
        expect(me.body).toMatchObject({ id: stored.id, roles: 'user', is_superuser: false });
      },
    );

    it('GraphQL refuses a register with a privileged argument and creates no user', async () => {
      const before = await rowCounts(world.t);
      const input = fresh();
      const result = await world.t.gql.request(
        `mutation ($name: String!, $account: String!, $email: String!, $password: String!) {
          register(input: { name: $name, account: $account, email: $email, password: $password,
                   passwordConfirm: $password, roles: ADMIN, isSuperuser: true }) { user { id roles } }
        }`,
        { name: input.name, account: input.account, email: input.email, password: input.password },
      );
      expect(result.data ?? null).toBeNull();
      expect(result.errors?.map((e) => e.extensions?.code)).toEqual([
        'GRAPHQL_VALIDATION_FAILED',
        'GRAPHQL_VALIDATION_FAILED',
      ]);
      expect(await rowCounts(world.t)).toEqual(before);
    });
  });

  describe('meeting creation: the owner is the caller and the meeting is pending', () => {
    let other: SeededMeeting;

    beforeAll(async () => {
      other = await world.t.seed.meeting(world.users.admin).inviting(world.users.stranger).create();
    });

    it('owner_id, status, id and timestamps in the body are ignored (REST)', async () => {
      const { owner, participant, stranger } = world.users;
      const otherBefore = await meetingState(world.t, other.id);
      const response = await world.rest.post<Record<string, unknown>>(
        '/meeting/create',
        {
          json: {
            owner_id: stranger.id,
            status: 'confirmed',
            id: CHOSEN_ID,
            meeting: {
              title: 'Mass assignment probe',
              start_time: inHours(20),
              location: 'Room 9, annex',
              owner_id: stranger.id,
              owner: { id: stranger.id },
              status: 'confirmed',
              id: CHOSEN_ID,
              created_at: LONG_AGO,
              updated_at: LONG_AGO,
            },
            participants: [
              {
                user_id: participant.id,
                status: 'accepted',
                meeting_id: other.id,
                id: CHOSEN_ID_2,
                created_at: LONG_AGO,
              },
            ],
          },
        },
        { token: owner.token },
      );
      expect(response.status).toBe(201);
      const meeting = camelize(response.body) as {
        id: string;
        ownerId: string;
        status: string;
        createdAt: string;
        participants: Array<{ id: string; userId: string; meetingId: string; status: string }>;
      };
      expect(meeting).toMatchObject({ ownerId: owner.id, status: 'pending' });
      expect(meeting.id).not.toBe(CHOSEN_ID);
      expect(Date.parse(meeting.createdAt)).toBeGreaterThan(Date.now() - 60_000);
      // Every participant belongs to the new meeting; the owner is its accepted first member.
      expect(meeting.participants.map((p) => [p.userId, p.meetingId, p.status])).toEqual([
        [owner.id, meeting.id, 'accepted'],
        [participant.id, meeting.id, 'accepted'],
      ]);
      expect(meeting.participants.map((p) => p.id)).not.toContain(CHOSEN_ID_2);

      const stored = await meetingState(world.t, meeting.id);
      expect({ ownerId: stored.ownerId, status: stored.status }).toEqual({
        ownerId: owner.id,
        status: 'pending',
      });
      const em = world.t.instance.database.orm.em.fork();
      expect(await em.count(Meeting, { id: CHOSEN_ID })).toBe(0);
      expect(await em.count(Participant, { id: CHOSEN_ID_2 })).toBe(0);
      expect(await meetingState(world.t, other.id)).toEqual(otherBefore);
    });

    const graphqlAttempts: Array<[string, string, Record<string, unknown>, string]> = [
      [
        'ownerId in the meeting variable',
        `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
          createMeeting(input: { meeting: $meeting, participants: $participants }) {
            meeting { id ownerId }
          }
        }`,
        { meetingExtra: { ownerId: CHOSEN_ID_2 } },
        'BAD_USER_INPUT',
      ],
      [
        'status in the meeting variable',
        `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
          createMeeting(input: { meeting: $meeting, participants: $participants }) {
            meeting { id status }
          }
        }`,
        { meetingExtra: { status: 'CONFIRMED' } },
        'BAD_USER_INPUT',
      ],
      [
        'an ownerId argument',
        `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!, $owner: String!) {
          createMeeting(input: { meeting: $meeting, participants: $participants, ownerId: $owner }) {
            meeting { id }
          }
        }`,
        { owner: CHOSEN_ID_2 },
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        'a meetingId in a participant',
        `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
          createMeeting(input: { meeting: $meeting, participants: $participants }) {
            meeting { id }
          }
        }`,
        { participantExtra: { meetingId: CHOSEN_ID } },
        'BAD_USER_INPUT',
      ],
    ];

    it.each(graphqlAttempts)(
      'GraphQL refuses %s and creates nothing',
      async (_what, query, extra, code) => {
        const { owner, participant } = world.users;
        const before = await rowCounts(world.t);
        const { meetingExtra, participantExtra, ...variables } = extra as {
          meetingExtra?: object;
          participantExtra?: object;
        };
        const result = await world.t.gql.request(
          query,
          {
            meeting: {
              title: 'Mass assignment probe',
              startTime: inHours(20),
              location: 'Room 9, annex',
              ...meetingExtra,
            },
            participants: [{ userId: participant.id, ...participantExtra }],
            ...variables,
          },
          owner.token,
        );
        expect(result.data ?? null).toBeNull();
        expect(result.errors?.[0]?.extensions?.code).toBe(code);
        expect(await rowCounts(world.t)).toEqual(before);
      },
    );

    it('GraphQL creates the meeting for the caller even when every guest is invited as accepted', async () => {
      const { stranger, participant, owner } = world.users;
      const data = await world.t.gql.data<{
        createMeeting: { meeting: { ownerId: string; status: string } };
      }>(
        `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
          createMeeting(input: { meeting: $meeting, participants: $participants }) {
            meeting { ownerId status }
          }
        }`,
        {
          meeting: { title: 'All accepted', startTime: inHours(20), location: 'Room 9, annex' },
          participants: [
            { userId: participant.id, status: 'ACCEPTED' },
            { userId: owner.id, status: 'ACCEPTED' },
          ],
        },
        stranger.token,
      );
      expect(data.createMeeting.meeting).toEqual({ ownerId: stranger.id, status: 'PENDING' });
    });
  });

  describe('adding a participant', () => {
    let meeting: SeededMeeting;
    let other: SeededMeeting;
    let second: SeededUser;
    let guest: SeededUser;
    let before: MeetingState;
    let otherBefore: MeetingState;

    beforeEach(async () => {
      [second, guest] = (await world.t.seed.users(2)) as [SeededUser, SeededUser];
      meeting = await world.t.seed
        .meeting(world.users.owner)
        .inviting(world.users.participant, second)
        .create();
      other = await world.t.seed
        .meeting(world.users.stranger)
        .inviting(world.users.participant, second)
        .create();
      before = await meetingState(world.t, meeting.id);
      otherBefore = await meetingState(world.t, other.id);
    });

    const add = (by: SeededUser, meetingId: string, body: RestBody, query = {}) =>
      world.rest.post(`/meeting/${meetingId}/participants/add`, body, { token: by.token, query });

    const unchanged = async () => {
      expect(await meetingState(world.t, meeting.id)).toEqual(before);
      expect(await meetingState(world.t, other.id)).toEqual(otherBefore);
    };

    it('a participant who is not the owner cannot add a user with a status of their choosing (403), and nothing changes', async () => {
      const response = await add(world.users.participant, meeting.id, {
        json: { user_id: guest.id, status: 'accepted' },
      });
      expect(restOutcome(response)).toEqual({
        status: 403,
        challenge: null,
        body: { errors: 'ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS' },
      });
      await unchanged();
    });

    it("a participant cannot rewrite another participant's answer through add (403), nor their own", async () => {
      for (const [userId, status] of [
        [second.id, 'declined'],
        [world.users.participant.id, 'accepted'],
        [world.users.owner.id, 'declined'],
      ] as const) {
        const response = await add(world.users.participant, meeting.id, {
          json: { user_id: userId, status },
        });
        expect({ userId, ...restOutcome(response) }).toEqual({
          userId,
          status: 403,
          challenge: null,
          body: { errors: 'ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS' },
        });
      }
      await unchanged();
    });

    it('a participant cannot do it through GraphQL either (FORBIDDEN), and nothing changes', async () => {
      const result = await world.t.gql.request(
        `mutation ($m: UUID!, $u: UUID!) {
          addParticipant(input: { meetingId: $m, userId: $u, status: ACCEPTED }) {
            participant { id status }
          }
        }`,
        { m: meeting.id, u: second.id },
        world.users.participant.token,
      );
      expect(result.errors?.[0]?.extensions).toEqual({
        code: 'FORBIDDEN',
        reason: 'ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS',
      });
      await unchanged();
    });

    it('a stranger gets 404 and nothing changes', async () => {
      const response = await add(world.users.stranger, meeting.id, {
        json: { user_id: guest.id, status: 'accepted' },
      });
      expect(restOutcome(response)).toEqual({
        status: 404,
        challenge: null,
        body: { errors: 'MEETING_NOT_FOUND' },
      });
      await unchanged();
    });

    it('the owner may set the initial status of the user they add (as the interface documents)', async () => {
      const response = await add(world.users.owner, meeting.id, {
        json: { user_id: guest.id, status: 'accepted' },
      });
      expect(response.status).toBe(200);
      const after = await meetingState(world.t, meeting.id);
      expect(after.participants.find((p) => p.userId === guest.id)?.status).toBe('accepted');
      expect(after.participants.filter((p) => p.userId !== guest.id)).toEqual(before.participants);
    });

    it("the owner cannot overwrite an existing participant's answer through add (409)", async () => {
      const response = await add(world.users.owner, meeting.id, {
        json: { user_id: second.id, status: 'declined' },
      });
      expect(restOutcome(response)).toEqual({
        status: 409,
        challenge: null,
        body: { errors: 'USER_ALREADY_A_PARTICIPANT' },
      });
      await unchanged();
    });

    it('a meeting_id, id or created_at in the body or query cannot redirect or shape the new row', async () => {
      const response = await add(
        world.users.owner,
        meeting.id,
        {
          json: {
            user_id: guest.id,
            meeting_id: other.id,
            id: CHOSEN_ID,
            created_at: LONG_AGO,
            user: { id: second.id, roles: 'admin' },
          },
        },
        { meeting_id: other.id },
      );
      expect(response.status).toBe(200);
      const row = camelize(response.body) as Record<string, unknown>;
      expect(row).toMatchObject({ meetingId: meeting.id, userId: guest.id, status: 'new' });
      expect(row['id']).not.toBe(CHOSEN_ID);
      expect(Date.parse(String(row['createdAt']))).toBeGreaterThan(Date.now() - 60_000);
      expect(await meetingState(world.t, other.id)).toEqual(otherBefore);
      const em = world.t.instance.database.orm.em.fork();
      expect(await em.count(Participant, { id: CHOSEN_ID })).toBe(0);
      expect((await em.findOneOrFail(User, { id: second.id })).roles).toBe('user');
    });
  });

  describe('approve and decline change only the caller’s own participation', () => {
    let meeting: SeededMeeting;
    let other: SeededMeeting;
    let first: SeededUser;
    let second: SeededUser;
    let before: MeetingState;
    let otherBefore: MeetingState;

    beforeEach(async () => {
      [first, second] = (await world.t.seed.users(2)) as [SeededUser, SeededUser];
      meeting = await world.t.seed.meeting(world.users.owner).inviting(first, second).create();
      other = await world.t.seed.meeting(world.users.owner).inviting(first, second).create();
      before = await meetingState(world.t, meeting.id);
      otherBefore = await meetingState(world.t, other.id);
    });

    /** The meeting's rows after the call: only `who`'s status may differ, and only to `status`. */
    const expectOnlyChanged = async (who: SeededUser, status: string, meetingStatus: string) => {
      const after = await meetingState(world.t, meeting.id);
      expect(after.status).toBe(meetingStatus);
      expect(after.participants.find((p) => p.userId === who.id)?.status).toBe(status);
      expect(after.participants.filter((p) => p.userId !== who.id)).toEqual(
        before.participants.filter((p) => p.userId !== who.id),
      );
      expect(await meetingState(world.t, other.id)).toEqual(otherBefore);
    };

    const smuggling = (target: SeededUser): Record<string, unknown> => ({
      user_id: target.id,
      userId: target.id,
      status: 'declined',
      meeting_id: other.id,
      participants: [{ user_id: target.id, status: 'accepted' }],
    });

    const bodies: Array<[string, (target: SeededUser) => RestBody | undefined]> = [
      ['no body', () => undefined],
      ['a JSON body naming another participant', (target) => ({ json: smuggling(target) })],
      [
        'a form body naming another participant',
        (target) => ({ form: { user_id: target.id, status: 'declined', meeting_id: other.id } }),
      ],
    ];

    it.each(bodies)(
      'approving with %s accepts only the caller’s participation',
      async (_what, body) => {
        const response = await world.rest.post(`/meeting/${meeting.id}/approve`, body(second), {
          token: first.token,
          query: { user_id: second.id, status: 'declined', meeting_id: other.id },
        });
        expect(restOutcome(response)).toEqual({
          status: 200,
          challenge: null,
          body: { message: 'Meeting approved successfully' },
        });
        await expectOnlyChanged(first, 'accepted', 'pending');
      },
    );

    it.each(bodies)(
      'declining with %s declines only the caller’s participation',
      async (_what, body) => {
        const response = await world.rest.post(`/meeting/${meeting.id}/decline`, body(first), {
          token: second.token,
          query: { user_id: first.id, meeting_id: other.id },
        });
        expect(restOutcome(response)).toEqual({
          status: 200,
          challenge: null,
          body: { message: 'Meeting declined successfully' },
        });
        await expectOnlyChanged(second, 'declined', 'pending');
      },
    );

    it('GraphQL refuses an approve that names another user, and nothing changes', async () => {
      const result = await world.t.gql.request(
        `mutation ($m: UUID!, $u: UUID!) {
          approveMeeting(input: { meetingId: $m, userId: $u }) { meeting { id } }
        }`,
        { m: meeting.id, u: second.id },
        first.token,
      );
      expect(result.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(await meetingState(world.t, meeting.id)).toEqual(before);
    });

    it('an admin who is no participant cannot answer for a participant (403), and nothing changes', async () => {
      for (const action of ['approve', 'decline']) {
        const response = await world.rest.post(
          `/meeting/${meeting.id}/${action}`,
          { json: smuggling(first) },
          { token: world.users.admin.token, query: { user_id: first.id } },
        );
        expect({ action, ...restOutcome(response) }).toEqual({
          action,
          status: 403,
          challenge: null,
          body: { errors: 'NOT_A_PARTICIPANT' },
        });
      }
      expect(await meetingState(world.t, meeting.id)).toEqual(before);
    });
  });
});
