import { startTestApp, type TestApp } from '../helpers/test-app';
import type { SeededUser } from '../helpers/seed';

const NESTED_MEETING = `query ($id: UUID!) {
  meeting(meetingId: $id) {
    id title owner { id account }
    participants { id status user { id name account } meeting { id } }
  }
}`;

describe('nested meeting queries are batched', () => {
  let t: TestApp;
  let owner: SeededUser;
  let guests: SeededUser[];

  beforeAll(async () => {
    t = await startTestApp();
    owner = await t.seed.user();
    guests = await t.seed.users(50);
  });
  afterAll(() => t.close());

  async function statementsFor(
    meetingId: string,
    token: string,
  ): Promise<{ count: number; participants: number }> {
    let participants = 0;
    const count = await t.countQueries(async () => {
      const data = await t.gql.data<{ meeting: { participants: unknown[] } }>(
        NESTED_MEETING,
        { id: meetingId },
        token,
      );
      participants = data.meeting.participants.length;
    });
    return { count, participants };
  }

  it('costs the same few SQL statements for 1 participant as for 50', async () => {
    const small = await t.seed
      .meeting(owner)
      .inviting(guests[0] as SeededUser)
      .create();
    const large = await t.seed
      .meeting(owner)
      .inviting(...guests)
      .create();

    const one = await statementsFor(small.id, owner.token);
    const fifty = await statementsFor(large.id, owner.token);

    expect(one.participants).toBe(2);
    expect(fifty.participants).toBe(51);
    expect(fifty.count).toBe(one.count);
    expect(fifty.count).toBeLessThanOrEqual(4);
  });

  it('stays constant when a participant (not the owner) reads the meeting', async () => {
    const large = await t.seed
      .meeting(owner)
      .inviting(...guests)
      .create();
    const asGuest = await statementsFor(large.id, (guests[10] as SeededUser).token);
    expect(asGuest.participants).toBe(51);
    expect(asGuest.count).toBeLessThanOrEqual(4);
  });
});

describe("the caller's meetings are read with their participants in one statement", () => {
  let t: TestApp;
  let owner: SeededUser;
  let guests: SeededUser[];

  beforeAll(async () => {
    t = await startTestApp();
    owner = await t.seed.user();
    guests = await t.seed.users(6);
  });
  afterAll(() => t.close());

  const MEETING_FIELDS = 'id title participants { id status user { id account } }';

  it('answers participants and users through fragments with one statement besides the caller', async () => {
    const meetings = [];
    for (let index = 0; index < 3; index += 1) {
      meetings.push(
        await t.seed
          .meeting(owner)
          .inviting(...guests.slice(index, index + 3))
          .create(),
      );
    }
    const query = `query { myMeetings(limit: 20) { ...Shown } }
      fragment Shown on Meeting { ... on Meeting { ${MEETING_FIELDS} } }`;
    let data: { myMeetings: Array<{ id: string; participants: Array<{ user: { id: string } }> }> } =
      { myMeetings: [] };
    const count = await t.countQueries(async () => {
      data = await t.gql.data(query, {}, owner.token);
    });
    expect(count).toBe(2);
    expect(data.myMeetings.map((meeting) => meeting.id).sort()).toEqual(
      meetings.map((meeting) => meeting.id).sort(),
    );
    for (const meeting of data.myMeetings) {
      // The owner first, then the three guests in the order they were invited.
      expect(meeting.participants.map((participant) => participant.user.id)[0]).toBe(owner.id);
      expect(meeting.participants).toHaveLength(4);
    }
  });

  it('answers the same meetings without reading participants when none are asked for', async () => {
    const withParticipants = await t.gql.data<{ myMeetings: Array<{ id: string }> }>(
      `query { myMeetings(limit: 20) { ${MEETING_FIELDS} } }`,
      {},
      owner.token,
    );
    let bare: { myMeetings: Array<{ id: string; title: string }> } = { myMeetings: [] };
    const count = await t.countQueries(async () => {
      bare = await t.gql.data(`query { myMeetings(limit: 20) { id title } }`, {}, owner.token);
    });
    expect(count).toBe(2);
    expect(bare.myMeetings.map((meeting) => meeting.id)).toEqual(
      withParticipants.myMeetings.map((meeting) => meeting.id),
    );
  });
});
