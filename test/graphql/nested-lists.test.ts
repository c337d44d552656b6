import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** The measured query of issue 23: each participant's meeting's first 100 participants. */
const NESTED = `query ($id: UUID!) {
  meeting(meetingId: $id) {
    participants {
      meeting {
        participantsConnection(first: 100) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes { id status user { id name } }
        }
      }
    }
  }
}`;

interface NestedAnswer {
  meeting: {
    participants: Array<{
      meeting: {
        participantsConnection: { totalCount: number; nodes: Array<{ id: string }> };
      };
    }>;
  };
}

describe('nested lists under a list', () => {
  let t: TestApp;
  let owner: SeededUser;

  beforeAll(async () => {
    // 500 guests and their owner: one more than the default cap allows.
    t = await startTestApp({ MAX_PARTICIPANTS_PER_MEETING: '501' });
    owner = await t.seed.user();
  });
  afterAll(() => t.close());

  it('reads a 500-guest meeting nested three lists deep in a few statements, not one per participant', async () => {
    const guests = await t.seed.bulkUsers(500);
    const meeting = await t.seed
      .meeting(owner)
      .inviting(...guests)
      .create();
    let answer: NestedAnswer | undefined;
    const statements = await t.countQueries(async () => {
      answer = await t.gql.data<NestedAnswer>(NESTED, { id: meeting.id }, owner.token);
    });
    const participants = answer?.meeting.participants ?? [];
    expect(participants).toHaveLength(501);
    for (const participant of participants) {
      expect(participant.meeting.participantsConnection.totalCount).toBe(501);
      expect(participant.meeting.participantsConnection.nodes).toHaveLength(100);
    }
    console.log(`nested 500-guest query: ${statements} SQL statements`);
    // The caller's token, the meeting with its participants, one slice per level, one count.
    expect(statements).toBeLessThanOrEqual(5);
  });
});

/** Each of the caller's meetings with a slice of its participants and their total. */
const SLICES = `query ($first: Int, $after: String, $answers: [ParticipantStatus!]) {
  meetings(first: 100) {
    nodes {
      id
      participantsConnection(first: $first, after: $after, answers: $answers) {
        totalCount
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node { id status user { id name } } }
      }
    }
  }
}`;

const ONE_MEETING = `query ($id: UUID!, $first: Int, $after: String, $answers: [ParticipantStatus!]) {
  meeting(meetingId: $id) {
    id
    participantsConnection(first: $first, after: $after, answers: $answers) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id status user { id name } } }
    }
  }
}`;

interface SliceAnswer {
  meetings: { nodes: Array<{ id: string; participantsConnection: unknown }> };
}

describe("many meetings' participant slices", () => {
  let t: TestApp;
  let owner: SeededUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await t.seed.user();
  });
  afterAll(() => t.close());

  async function slicesOfAll(
    variables: Record<string, unknown>,
  ): Promise<{ statements: number; answer: SliceAnswer }> {
    let answer: SliceAnswer | undefined;
    const statements = await t.countQueries(async () => {
      answer = await t.gql.data<SliceAnswer>(SLICES, variables, owner.token);
    });
    return { statements, answer: answer as SliceAnswer };
  }

  it('reads the slices of 3 meetings and of 30 in the same statements, each as a single read answers it', async () => {
    const guests = await t.seed.bulkUsers(40);
    for (let index = 0; index < 30; index += 1) {
      // Meetings of different sizes: 1 to 10 guests, some accepted up front.
      const size = 1 + (index % 10);
      const chosen = guests.slice(index, index + size);
      await t.seed
        .meeting(owner)
        .titled(`Meeting number ${index}`)
        .inviting(...chosen.filter((_, at) => at % 2 === 0))
        .invitingAs('ACCEPTED', ...chosen.filter((_, at) => at % 2 === 1))
        .create();
      if (index === 2) {
        const few = await slicesOfAll({ first: 3 });
        expect(few.answer.meetings.nodes).toHaveLength(3);
        expect(few.statements).toBeLessThanOrEqual(4);
      }
    }
    const cases: Array<Record<string, unknown>> = [
      { first: 3 },
      { first: 2, answers: ['ACCEPTED'] },
      { first: 100 },
      { answers: ['NEW', 'DECLINED'] },
    ];
    for (const variables of cases) {
      const many = await slicesOfAll(variables);
      expect(many.answer.meetings.nodes).toHaveLength(30);
      // The caller, the meetings, one slice statement, one count statement.
      expect(many.statements).toBeLessThanOrEqual(4);
      for (const node of many.answer.meetings.nodes) {
        const single = await t.gql.data<{ meeting: { participantsConnection: unknown } }>(
          ONE_MEETING,
          { id: node.id, ...variables },
          owner.token,
        );
        expect(node.participantsConnection).toEqual(single.meeting.participantsConnection);
      }
    }
    // A cursor of a slice read with the others reads on as a single read would.
    const first = await slicesOfAll({ first: 2 });
    const withCursor = first.answer.meetings.nodes.map((node) => ({
      id: node.id,
      after: (node.participantsConnection as { pageInfo: { endCursor: string | null } }).pageInfo
        .endCursor,
    }));
    const [sample] = withCursor.filter((one) => one.after !== null);
    const next = await slicesOfAll({ first: 2, after: sample?.after });
    for (const node of next.answer.meetings.nodes) {
      const single = await t.gql.data<{ meeting: { participantsConnection: unknown } }>(
        ONE_MEETING,
        { id: node.id, first: 2, after: sample?.after },
        owner.token,
      );
      expect(node.participantsConnection).toEqual(single.meeting.participantsConnection);
    }
  });

  it('refuses a foreign cursor on every meeting alike, as a single read does', async () => {
    const [guest] = await t.seed.bulkUsers(1);
    await t.seed
      .meeting(owner)
      .inviting(guest as { id: string })
      .create();
    const answer = await t.gql.request(SLICES, { first: 2, after: 'not-a-cursor' }, owner.token);
    expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});
