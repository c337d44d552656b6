import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}
interface Connection {
  edges: Array<{ cursor: string; node: { id: string } }>;
  pageInfo: PageInfo;
  totalCount: number;
}

const SLICE = `edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount`;
const SLICE_ARGS = '$first: Int, $after: String, $last: Int, $before: String';
const SLICE_VARS = 'first: $first, after: $after, last: $last, before: $before';

const MEETINGS = `query (${SLICE_ARGS}, $filter: MeetingFilterInput) {
  meetings(${SLICE_VARS}, filter: $filter) { ${SLICE} }
}`;
const INVITATIONS = `query (${SLICE_ARGS}, $filter: InvitationFilterInput) {
  invitations(${SLICE_VARS}, filter: $filter) { ${SLICE} }
}`;
const PARTICIPANTS = `query (${SLICE_ARGS}, $id: UUID!) {
  meeting(meetingId: $id) { participantsConnection(${SLICE_VARS}) { ${SLICE} } }
}`;
const FOLLOWING = `query (${SLICE_ARGS}) { followingConnection(${SLICE_VARS}) { ${SLICE} } }`;
const SEARCH = `query (${SLICE_ARGS}, $q: String!) {
  searchUsersConnection(${SLICE_VARS}, q: $q) { ${SLICE} }
}`;
const APPROVE = `mutation ($id: UUID!) { approveMeeting(input: { meetingId: $id }) { meeting { id } } }`;
const FOLLOW = `mutation ($id: UUID!) { follow(input: { userId: $id }) { follow { id } } }`;
const ADD = `mutation ($meetingId: UUID!, $userId: UUID!) {
  addParticipant(input: { meetingId: $meetingId, userId: $userId }) { participant { id } }
}`;

describe('cursor connections', () => {
  const t = useTestApp();
  let owner: SeededUser;
  let guests: SeededUser[];

  beforeAll(async () => {
    [owner, ...guests] = (await t.seed.users(8)) as [SeededUser, ...SeededUser[]];
  });

  /** The connection at `path` of an operation's data. */
  async function slice(
    query: string,
    variables: Record<string, unknown>,
    token: string,
    path: string[],
  ): Promise<Connection> {
    let found: unknown = await t.gql.data(query, variables, token);
    for (const key of path) {
      found = (found as Record<string, unknown>)[key];
    }
    return found as Connection;
  }

  /**
   * Pages through a whole list one way, `size` at a time, running `between` after each page, and
   * answers the ids in the list's order with the pages' totals.
   */
  async function walk(
    direction: 'forward' | 'backward',
    size: number,
    read: (variables: Record<string, unknown>) => Promise<Connection>,
    between: (page: number) => Promise<void> = async () => {},
  ): Promise<{ ids: string[]; pages: number; totals: number[] }> {
    const ids: string[] = [];
    const totals: number[] = [];
    let cursor: string | null = null;
    for (let page = 1; page < 50; page += 1) {
      const connection: Connection = await read(
        direction === 'forward' ? { first: size, after: cursor } : { last: size, before: cursor },
      );
      const pageIds = connection.edges.map((edge) => edge.node.id);
      expect(pageIds.length).toBeLessThanOrEqual(size);
      expect(connection.pageInfo.startCursor).toBe(connection.edges[0]?.cursor ?? null);
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)?.cursor ?? null);
      totals.push(connection.totalCount);
      if (direction === 'forward') {
        ids.push(...pageIds);
        cursor = connection.pageInfo.endCursor;
        if (!connection.pageInfo.hasNextPage) {
          return { ids, pages: page, totals };
        }
      } else {
        ids.unshift(...pageIds);
        cursor = connection.pageInfo.startCursor;
        if (!connection.pageInfo.hasPreviousPage) {
          return { ids, pages: page, totals };
        }
      }
      await between(page);
    }
    throw new Error('the list did not end');
  }

  const noDuplicates = (ids: string[]) => expect(new Set(ids).size).toBe(ids.length);

  describe("the caller's meetings", () => {
    const created: Array<{ id: string; hours: number }> = [];

    beforeAll(async () => {
      for (const hours of [5, 1, 7, 3, 2, 6, 4]) {
        const meeting = await t.seed
          .meeting(owner)
          .startingInHours(hours)
          .inviting(guests[0] as SeededUser)
          .create();
        created.push({ id: meeting.id, hours });
      }
    });

    const byStart = () =>
      [...created].sort((a, b) => a.hours - b.hours).map((meeting) => meeting.id);
    const read = (variables: Record<string, unknown>) =>
      slice(MEETINGS, variables, owner.token, ['meetings']);

    it('pages forward by start time with no duplicates and no gaps while meetings are added', async () => {
      const before = byStart();
      const added: string[] = [];
      const walked = await walk('forward', 3, read, async (page) => {
        // One meeting lands behind the cursor, one ahead of it.
        const guest = guests[0] as SeededUser;
        const early = await t.seed
          .meeting(owner)
          .startingInHours(0.5 + page / 100)
          .inviting(guest)
          .create();
        const late = await t.seed
          .meeting(owner)
          .startingInHours(100 + page)
          .inviting(guest)
          .create();
        created.push({ id: early.id, hours: 0.5 + page / 100 }, { id: late.id, hours: 100 + page });
        added.push(late.id);
      });
      noDuplicates(walked.ids);
      // Every meeting there from the start, in order, then those added ahead of the cursor.
      expect(walked.ids).toEqual([...before, ...added]);
      expect(walked.totals[0]).toBe(before.length);
      expect(walked.totals.at(-1)).toBe(created.length);
    });

    it('pages backward to the same order', async () => {
      const all = byStart();
      const walked = await walk('backward', 4, read);
      noDuplicates(walked.ids);
      expect(walked.ids).toEqual(all);
      expect(walked.pages).toBe(Math.ceil(all.length / 4));
    });

    it('orders latest first when asked, and filters by role, status and time', async () => {
      const latest = await read({ first: 2, filter: { order: 'DESC' } });
      expect(latest.edges.map((edge) => edge.node.id)).toEqual(byStart().reverse().slice(0, 2));

      const other = guests[1] as SeededUser;
      const invitedTo = await t.seed.meeting(other).startingInHours(2).inviting(owner).create();
      const accepted = await t.seed.meeting(other).startingInHours(3).inviting(owner).create();
      // Everyone has accepted once the owner does: the meeting is confirmed.
      await t.gql.data(APPROVE, { id: accepted.id }, owner.token);
      const ids = async (filter: Record<string, unknown>) =>
        (await read({ first: 100, filter })).edges.map((edge) => edge.node.id);

      expect(await ids({ callerRoles: ['INVITED'] })).toEqual([invitedTo.id]);
      expect(await ids({ callerRoles: ['ACCEPTED', 'INVITED'] })).toEqual([
        invitedTo.id,
        accepted.id,
      ]);
      expect(await ids({ callerRoles: ['OWNER'] })).toEqual(byStart());
      expect(await ids({ states: ['CONFIRMED'] })).toEqual([accepted.id]);
      const soon = new Date(Date.now() + 2.5 * 3_600_000).toISOString();
      const later = await ids({ startsAfter: soon, callerRoles: ['OWNER'] });
      expect(later).toEqual(
        [...created]
          .filter((meeting) => meeting.hours > 2.5)
          .sort((a, b) => a.hours - b.hours)
          .map((meeting) => meeting.id),
      );
      const earlier = await ids({ startsBefore: soon });
      expect(earlier).toContain(invitedTo.id);
      expect(earlier).not.toContain(accepted.id);
      const filtered = await read({ first: 1, filter: { callerRoles: ['INVITED'] } });
      expect(filtered.totalCount).toBe(1);
    });
  });

  it("pages through a meeting's participants in the order added while guests are added", async () => {
    const meeting = await t.seed
      .meeting(owner)
      .inviting(...guests.slice(0, 4))
      .create();
    const read = async (variables: Record<string, unknown>) =>
      slice(PARTICIPANTS, { ...variables, id: meeting.id }, owner.token, [
        'meeting',
        'participantsConnection',
      ]);
    const before = (await read({ first: 100 })).edges.map((edge) => edge.node.id);
    expect(before).toHaveLength(5);
    const walked = await walk('forward', 2, read, async (page) => {
      await t.gql.data(
        ADD,
        { meetingId: meeting.id, userId: (guests[3 + page] as SeededUser).id },
        owner.token,
      );
    });
    noDuplicates(walked.ids);
    expect(walked.ids.slice(0, before.length)).toEqual(before);
    expect(walked.ids).toHaveLength(before.length + walked.pages - 1);
    const back = await walk('backward', 3, read);
    expect(back.ids).toEqual(walked.ids);
  });

  it('pages through follows newest first, and invitations', async () => {
    const follower = guests[6] as SeededUser;
    for (const user of guests.slice(0, 5)) {
      await t.gql.data(FOLLOW, { id: user.id }, follower.token);
    }
    const read = (variables: Record<string, unknown>) =>
      slice(FOLLOWING, variables, follower.token, ['followingConnection']);
    const before = (await read({ first: 100 })).edges.map((edge) => edge.node.id);
    const walked = await walk('forward', 2, read, async () => {
      // Newest first: a new follow lands before the cursor and is not seen on this walk.
      await t.gql.data(FOLLOW, { id: owner.id }, follower.token);
    });
    expect(walked.ids).toEqual(before);
    expect(walked.totals.at(-1)).toBe(before.length + 1);

    const invitations = await slice(INVITATIONS, { first: 100 }, (guests[0] as SeededUser).token, [
      'invitations',
    ]);
    expect(invitations.totalCount).toBeGreaterThan(0);
    const answered = await slice(
      INVITATIONS,
      { first: 100, filter: { answers: ['ACCEPTED'] } },
      (guests[0] as SeededUser).token,
      ['invitations'],
    );
    expect(answered.totalCount).toBe(0);
  });

  it('pages through a user search by name', async () => {
    const read = (variables: Record<string, unknown>) =>
      slice(SEARCH, { ...variables, q: 'user' }, owner.token, ['searchUsersConnection']);
    const forward = await walk('forward', 3, read);
    const backward = await walk('backward', 3, read);
    noDuplicates(forward.ids);
    expect(forward.ids.length).toBeGreaterThanOrEqual(8);
    expect(backward.ids).toEqual(forward.ids);
    expect(forward.totals[0]).toBe(forward.ids.length);
  });

  it('refuses foreign cursors, oversized slices and first with last, with BAD_USER_INPUT', async () => {
    const errors = await Promise.all([
      t.gql.error(MEETINGS, { first: 2, after: 'not-a-cursor' }, owner.token),
      t.gql.error(MEETINGS, { first: 101 }, owner.token),
      t.gql.error(MEETINGS, { first: 2, last: 2 }, owner.token),
      t.gql.error(MEETINGS, { last: 0 }, owner.token),
    ]);
    for (const error of errors) {
      expect(error.extensions?.['code']).toBe('BAD_USER_INPUT');
    }
    expect(errors[0]?.extensions?.['fields']).toEqual({ after: 'INVALID_FORMAT' });
  });
});
