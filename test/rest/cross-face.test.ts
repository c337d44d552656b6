import { User } from '../../src/modules/user/user.entity';
import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';
import { createMeetingViaRest, type WireMeeting } from './rest-fixtures';

/**
 * The cross-face property: a REST body is the GraphQL data of the equivalent query, with keys in
 * snake_case and enum names as their wire values. Both faces run the same core, so they must agree.
 */

const USER_FIELDS = `name email account id roles isActive isVerified isSuperuser bio dob phone
  avatarPhotoId deletedAt createdAt updatedAt`;
const PARTICIPANT_FIELDS = `meetingId userId id user { ${USER_FIELDS} } status createdAt updatedAt`;
const MEETING_FIELDS = `title ownerId startTime location id appointedBy assignedTo type status
  locationUrl createdAt updatedAt participants { ${PARTICIPANT_FIELDS} }`;

const ME = `{ me { ${USER_FIELDS} } }`;
const USER = `query ($account: String!) { user(account: $account) { ${USER_FIELDS} } }`;
const MEETING = `query ($id: UUID!) { meeting(meetingId: $id) { ${MEETING_FIELDS} } }`;
const MY_MEETINGS = `{ myMeetings { ${MEETING_FIELDS} } }`;
const SEARCH = `query ($q: String!, $skip: Int, $limit: Int) {
  searchUsers(q: $q, skip: $skip, limit: $limit) { data { ${USER_FIELDS} } count }
}`;
const FOLLOWING = `{ following { data { id followingId user: following { ${USER_FIELDS} } createdAt updatedAt } count } }`;
const REQUESTS = `query ($skip: Int, $limit: Int) {
  meetingRequests(skip: $skip, limit: $limit) { ${PARTICIPANT_FIELDS} }
}`;
const FOLLOW_STATUS = `query ($id: UUID!) { followStatus(userId: $id) { isFollowing isFollowedBy isMutual } }`;

/** Fields whose values are enums: GraphQL names them (ALL_HANDS), REST spells them (all-hands). */
const ENUM_FIELDS = new Set(['roles', 'type', 'status']);

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const wireEnum = (name: string): string => name.toLowerCase().replace(/_/g, '-');

/** GraphQL data → the REST wire form: snake_case keys, enum names as wire values. */
function toWire(value: unknown, field?: string): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => toWire(item, field));
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [snakeCase(key), toWire(inner, key)]),
    );
  }
  if (typeof value === 'string' && field !== undefined && ENUM_FIELDS.has(field)) {
    return wireEnum(value);
  }
  return value;
}

describe('the REST and GraphQL faces answer the same data', () => {
  const t = useTestApp();
  const { rest } = t;
  let owner: SeededUser;
  let guest: SeededUser;
  let other: SeededUser;
  let admin: SeededUser;
  let meeting: WireMeeting;

  beforeAll(async () => {
    owner = await t.seed.user({ name: 'Crossface Owner' });
    guest = await t.seed.user({ name: 'Crossface Guest' });
    other = await t.seed.user({ name: 'Crossface Other' });
    admin = await t.seed.user({ name: 'Crossface Admin' });
    await t.seed.update(admin, { roles: 'admin' as never });
    // Optional profile fields no endpoint sets, so that both faces render non-null values too.
    await t.instance.database.orm.em.fork().nativeUpdate(
      User,
      { id: guest.id },
      {
        bio: 'Likes agendas.',
        phone: '+44 20 7946 0000',
        avatarPhotoId: '6f1c2b9e-0d4a-4c3e-9f8a-1b2c3d4e5f60',
      },
    );
    meeting = await createMeetingViaRest(
      rest,
      owner.token,
      [guest.id, { user_id: other.id, status: 'declined' }, { user_id: admin.id, status: 'new' }],
      {
        type: 'one-on-one',
        location_url: 'https://meet.example.com/cross',
        appointed_by: admin.id,
      },
    );
    await t.seed.meeting(other).inviting(guest).create();
    await t.seed.meeting(admin).inviting(guest, owner).create();
    for (const followed of [owner, other, admin]) {
      await rest.post(`/follow/follow/${followed.id}`, undefined, { token: guest.token });
    }
  });

  async function expectSameData(
    restPath: string,
    query: string,
    variables: Record<string, unknown>,
    token: string,
    restQuery: Record<string, string | number> = {},
  ): Promise<unknown> {
    const [viaRest, viaGraphQL] = await Promise.all([
      rest.get(restPath, { token, query: restQuery }),
      t.gql.data<Record<string, unknown>>(query, variables, token),
    ]);
    expect(viaRest.status).toBe(200);
    const root = Object.values(viaGraphQL)[0];
    expect(viaRest.body).toEqual(toWire(root));
    return viaRest.body;
  }

  it('converts GraphQL names to wire names as the contract spells them', () => {
    expect(
      toWire({ startTime: 'x', type: 'ALL_HANDS', status: 'ACCEPTED', roles: 'USER', name: 'NEW' }),
    ).toEqual({
      start_time: 'x',
      type: 'all-hands',
      status: 'accepted',
      roles: 'user',
      name: 'NEW',
    });
  });

  it('answers the current user alike', async () => {
    const body = await expectSameData('/user/me', ME, {}, guest.token);
    expect(body).toMatchObject({
      bio: 'Likes agendas.',
      phone: '+44 20 7946 0000',
      avatar_photo_id: '6f1c2b9e-0d4a-4c3e-9f8a-1b2c3d4e5f60',
    });
    await expectSameData('/user/me', ME, {}, admin.token);
  });

  it('answers a date of birth alike, as YYYY-MM-DD', async () => {
    const born = await t.seed.user({ name: 'Dated Birthday Person' });
    await t.instance.database.orm.em
      .fork()
      .nativeUpdate(User, { id: born.id }, { dob: '1990-02-28' });
    const body = await expectSameData('/user/me', ME, {}, born.token);
    expect(body).toMatchObject({ dob: '1990-02-28' });
  });

  it('answers a user by account alike', async () => {
    await expectSameData(`/user/${guest.account}`, USER, { account: guest.account }, owner.token);
  });

  it('answers a meeting with its participants alike, to its owner and to a guest', async () => {
    for (const viewer of [owner, guest]) {
      const body = (await expectSameData(
        `/meeting/${meeting.id}`,
        MEETING,
        { id: meeting.id },
        viewer.token,
      )) as WireMeeting;
      expect(body.participants.map((p) => p.status)).toEqual([
        'accepted',
        'new',
        'declined',
        'new',
      ]);
      expect(body.type).toBe('one-on-one');
    }
  });

  it('answers the meeting the REST create returned, unchanged', async () => {
    const data = await t.gql.data<{ meeting: unknown }>(MEETING, { id: meeting.id }, owner.token);
    expect(toWire(data.meeting)).toEqual(meeting);
  });

  it('answers the meeting index alike', async () => {
    await expectSameData('/meeting/index', MY_MEETINGS, {}, owner.token);
  });

  it('answers a search page alike', async () => {
    const body = await expectSameData(
      '/user/search',
      SEARCH,
      { q: 'crossface', skip: 1, limit: 2 },
      owner.token,
      { q: 'crossface', skip: 1, limit: 2 },
    );
    expect(body).toMatchObject({ count: 4 });
    await expectSameData('/user/search', SEARCH, { q: 'crossface' }, owner.token, {
      q: 'crossface',
    });
  });

  it('answers the following list alike', async () => {
    const body = await expectSameData('/follow/following', FOLLOWING, {}, guest.token);
    expect(body).toMatchObject({ count: 3 });
  });

  it('answers the meeting requests alike', async () => {
    const body = await expectSameData('/meeting/requests', REQUESTS, {}, guest.token);
    expect(body).toHaveLength(3);
    await expectSameData('/meeting/requests', REQUESTS, { skip: 1, limit: 1 }, guest.token, {
      skip: 1,
      limit: 1,
    });
  });

  it('answers the follow status alike', async () => {
    await expectSameData(
      `/follow/status/${owner.id}`,
      FOLLOW_STATUS,
      { id: owner.id },
      guest.token,
    );
  });
});
