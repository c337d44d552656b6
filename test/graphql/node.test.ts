import type { SeededMeeting, SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

const NODE = `query ($id: ID!) {
  node(id: $id) {
    __typename
    id
    ... on User { account }
    ... on Meeting { title participants { id } }
    ... on Participant { userId meetingId }
    ... on Follow { followerId followingId }
  }
}`;
const NODES = `query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`;
const FOLLOW = `mutation ($userId: UUID!) { follow(input: { userId: $userId }) { follow { id } } }`;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

interface NodeAnswer {
  __typename: string;
  id: string;
  participants?: Array<{ id: string }>;
}

describe('refetching any object by id (node, nodes)', () => {
  const t = useTestApp();
  let owner: SeededUser;
  let guest: SeededUser;
  let stranger: SeededUser;
  let admin: SeededUser;
  let meeting: SeededMeeting;
  let participantIds: string[];
  let followId: string;

  const node = async (id: string, viewer: SeededUser): Promise<NodeAnswer | null> =>
    (await t.gql.data<{ node: NodeAnswer | null }>(NODE, { id }, viewer.token)).node;

  beforeAll(async () => {
    [owner, guest, stranger, admin] = (await t.seed.users(4)) as [
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
    ];
    await t.seed.update(admin, { roles: 'admin' as never });
    meeting = await t.seed.meeting(owner).inviting(guest).create();
    const shown = await node(meeting.id, owner);
    participantIds = (shown?.participants ?? []).map((p) => p.id);
    followId = (
      await t.gql.data<{ follow: { follow: { id: string } } }>(
        FOLLOW,
        { userId: guest.id },
        owner.token,
      )
    ).follow.follow.id;
  });

  it('answers each type by the same UUID the other reads show', async () => {
    expect(await node(owner.id, stranger)).toEqual({
      __typename: 'User',
      id: owner.id,
      account: owner.account,
    });
    expect(await node(meeting.id, guest)).toMatchObject({
      __typename: 'Meeting',
      id: meeting.id,
      participants: participantIds.map((id) => ({ id })),
    });
    expect(participantIds).toHaveLength(2);
    expect(await node(participantIds[1] ?? '', guest)).toEqual({
      __typename: 'Participant',
      id: participantIds[1],
      userId: guest.id,
      meetingId: meeting.id,
    });
    expect(await node(followId, guest)).toEqual({
      __typename: 'Follow',
      id: followId,
      followerId: owner.id,
      followingId: guest.id,
    });
  });

  it('shows a meeting and its participants to those who see the meeting, else null', async () => {
    for (const viewer of [owner, guest, admin]) {
      expect((await node(meeting.id, viewer))?.id).toBe(meeting.id);
      expect((await node(participantIds[0] ?? '', viewer))?.id).toBe(participantIds[0]);
    }
    expect(await node(meeting.id, stranger)).toBeNull();
    expect(await node(participantIds[0] ?? '', stranger)).toBeNull();
    expect(await node(followId, stranger)).toBeNull();
  });

  it('answers null alike for an unknown id, a malformed one and a hidden user', async () => {
    // A user of its own: deactivation ends that user's sessions for good (their tokens are refused
    // after reactivation too), which the other tests' users must not suffer.
    const hidden = await t.seed.user();
    await t.seed.update(hidden, { isActive: false });
    expect(await node(hidden.id, owner)).toBeNull();
    expect(await node(UNKNOWN_ID, owner)).toBeNull();
    expect(await node('not-a-uuid', owner)).toBeNull();
  });

  it('answers nodes in the order asked, null where node would be', async () => {
    const data = await t.gql.data<{ nodes: Array<NodeAnswer | null> }>(
      NODES,
      { ids: [meeting.id, UNKNOWN_ID, owner.id.toUpperCase(), followId] },
      stranger.token,
    );
    expect(data.nodes).toEqual([null, null, { __typename: 'User', id: owner.id }, null]);
  });

  it('refuses more than 100 ids and anonymous callers', async () => {
    const many = await t.gql.error(
      NODES,
      { ids: Array.from({ length: 101 }, () => UNKNOWN_ID) },
      owner.token,
    );
    expect(many.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
      fields: { ids: 'TOO_LONG' },
    });
    expect((await t.gql.error(NODE, { id: owner.id })).extensions).toEqual({
      code: 'UNAUTHENTICATED',
      reason: 'NOT_AUTHENTICATED',
    });
  });
});
