import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface AwayPeriod {
  id: string;
  start: string;
  end: string;
  kind: string;
  title: string;
  declineInvitations: boolean;
}
interface Answer {
  userId: string;
  status: string;
  answerReason: string | null;
}

const FIELDS = 'id start end kind title declineInvitations';
const CREATE = `mutation ($input: CreateAwayPeriodInput!) { createAwayPeriod(input: $input) { awayPeriod { ${FIELDS} } } }`;
const UPDATE = `mutation ($input: UpdateAwayPeriodInput!) { updateAwayPeriod(input: $input) { awayPeriod { ${FIELDS} } } }`;
const DELETE = `mutation ($input: DeleteAwayPeriodInput!) { deleteAwayPeriod(input: $input) { awayPeriod { id } } }`;
const MINE = `query ($from: DateTime!, $to: DateTime!) { myAwayPeriods(from: $from, to: $to) { ${FIELDS} } }`;
const CREATE_MEETING = `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { id } }
}`;
const ADD = `mutation ($meetingId: UUID!, $userId: UUID!) {
  addParticipant(input: { meetingId: $meetingId, userId: $userId }) { participant { id } }
}`;
const ANSWERS = `query ($id: UUID!) { meeting(meetingId: $id) { participants { userId status answerReason } } }`;
const APPROVE = `mutation ($id: UUID!) { approveMeeting(input: { meetingId: $id }) { meeting { id } } }`;
const EVENTS = `query { myMeetingEvents(first: 100) {
  edges { node { kind userId meeting { id } participant { status answerReason } } }
} }`;

const at = (time: string) => `2027-07-${time}:00.000Z`;
const holiday = {
  start: at('05T00:00'),
  end: at('10T00:00'),
  kind: 'OUT_OF_OFFICE',
  title: 'Holiday in Lisbon',
  declineInvitations: true,
};

describe('time away', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const create = (user: SeededUser, input: Record<string, unknown>) =>
    t.gql.request<{ createAwayPeriod: { awayPeriod: AwayPeriod } }>(CREATE, { input }, user.token);
  const mine = async (user: SeededUser, from: string, to: string) =>
    (await t.gql.data<{ myAwayPeriods: AwayPeriod[] }>(MINE, { from, to }, user.token))
      .myAwayPeriods;

  async function meeting(
    owner: SeededUser,
    fields: Record<string, unknown>,
    invited: SeededUser[],
  ): Promise<string> {
    const data = await t.gql.data<{ createMeeting: { meeting: { id: string } } }>(
      CREATE_MEETING,
      {
        meeting: { title: 'Quarterly review', location: 'Room 4', ...fields },
        participants: invited.map((user) => ({ userId: user.id })),
      },
      owner.token,
    );
    return data.createMeeting.meeting.id;
  }

  const answerOf = async (owner: SeededUser, meetingId: string, user: SeededUser) =>
    (
      await t.gql.data<{ meeting: { participants: Answer[] } }>(
        ANSWERS,
        { id: meetingId },
        owner.token,
      )
    ).meeting.participants.find((answer) => answer.userId === user.id);

  /** The invitee's answer once it is no longer open, or the open one after `ms`. */
  async function settledAnswer(owner: SeededUser, meetingId: string, user: SeededUser, ms = 5000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const answer = await answerOf(owner, meetingId, user);
      if (answer?.status !== 'NEW' || Date.now() > deadline) {
        return answer;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  describe('the periods', () => {
    it('are created, listed by window, changed and deleted by their owner', async () => {
      const [ada] = (await t.seed.users(1)) as [SeededUser];
      const created = await create(ada, { ...holiday, title: '  Holiday in Lisbon ' });
      expect(created.errors).toBeUndefined();
      const period = created.data?.createAwayPeriod.awayPeriod as AwayPeriod;
      expect(period).toEqual({ id: expect.any(String), ...holiday });
      const focus = (
        await create(ada, {
          start: at('12T09:00'),
          end: at('12T11:00'),
          kind: 'FOCUS',
          title: 'Writing',
        })
      ).data?.createAwayPeriod.awayPeriod as AwayPeriod;
      expect(focus.declineInvitations).toBe(false);
      expect((await mine(ada, at('01T00:00'), at('31T00:00'))).map((p) => p.id)).toEqual([
        period.id,
        focus.id,
      ]);
      expect(await mine(ada, at('10T00:00'), at('12T09:00'))).toEqual([]);

      const updated = await t.gql.data<{ updateAwayPeriod: { awayPeriod: AwayPeriod } }>(
        UPDATE,
        { input: { awayPeriodId: focus.id, end: at('12T12:00'), title: 'Deep work' } },
        ada.token,
      );
      expect(updated.updateAwayPeriod.awayPeriod).toEqual({
        ...focus,
        end: at('12T12:00'),
        title: 'Deep work',
      });
      await t.gql.data(DELETE, { input: { awayPeriodId: focus.id } }, ada.token);
      expect((await mine(ada, at('01T00:00'), at('31T00:00'))).map((p) => p.id)).toEqual([
        period.id,
      ]);
    });

    it("are nobody else's to see, change or delete", async () => {
      const [ada, ben] = (await t.seed.users(2)) as [SeededUser, SeededUser];
      const period = (await create(ada, holiday)).data?.createAwayPeriod.awayPeriod as AwayPeriod;
      expect(await mine(ben, at('01T00:00'), at('31T00:00'))).toEqual([]);
      for (const [query, input] of [
        [UPDATE, { awayPeriodId: period.id, title: 'Mine now' }],
        [DELETE, { awayPeriodId: period.id }],
      ] as const) {
        const refused = await t.gql.error(query, { input }, ben.token);
        expect(refused.extensions).toMatchObject({
          code: 'NOT_FOUND',
          reason: 'AWAY_PERIOD_NOT_FOUND',
        });
      }
      expect(await mine(ada, at('01T00:00'), at('31T00:00'))).toEqual([period]);
      const anonymous = await t.gql.error(CREATE, { input: holiday });
      expect(anonymous.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    });

    it('refuses an end before the start, a blank title, focus that declines, too long a period', async () => {
      const [ada] = (await t.seed.users(1)) as [SeededUser];
      const fields = async (input: Record<string, unknown>) =>
        (await create(ada, { ...holiday, ...input })).errors?.[0]?.extensions?.['fields'];
      expect(await fields({ end: holiday.start })).toEqual({ end: 'TOO_SMALL' });
      expect(await fields({ title: '   ' })).toEqual({ title: 'REQUIRED' });
      expect(await fields({ kind: 'FOCUS' })).toEqual({
        declineInvitations: 'INVALID_CHOICE',
      });
      expect(await fields({ end: '2028-07-06T00:00:00.000Z' })).toEqual({
        end: 'TOO_LARGE',
      });
      const period = (await create(ada, holiday)).data?.createAwayPeriod.awayPeriod as AwayPeriod;
      // An update is checked as the period it would make.
      const backwards = await t.gql.error(
        UPDATE,
        { input: { awayPeriodId: period.id, start: at('11T00:00') } },
        ada.token,
      );
      expect(backwards.extensions?.['fields']).toEqual({ end: 'TOO_SMALL' });
      expect(await mine(ada, at('01T00:00'), at('31T00:00'))).toEqual([period]);
    });
  });

  describe('declineInvitations', () => {
    it('declines a new invitation inside the period, with its title, and not one outside', async () => {
      const [alice, bob] = (await t.seed.users(2)) as [SeededUser, SeededUser];
      await create(bob, holiday);
      const inside = await meeting(alice, { startTime: at('06T10:00') }, [bob]);
      const outside = await meeting(alice, { startTime: at('12T10:00') }, [bob]);
      expect(await settledAnswer(alice, inside, bob)).toEqual({
        userId: bob.id,
        status: 'DECLINED',
        answerReason: 'Holiday in Lisbon',
      });
      expect(await settledAnswer(alice, outside, bob, 1000)).toMatchObject({ status: 'NEW' });
      // The inviter hears it as any answer.
      const events = await t.gql.data<{
        myMeetingEvents: {
          edges: Array<{
            node: {
              kind: string;
              userId: string | null;
              meeting: { id: string };
              participant: { status: string; answerReason: string | null } | null;
            };
          }>;
        };
      }>(EVENTS, {}, alice.token);
      expect(events.myMeetingEvents.edges.map((edge) => edge.node)).toContainEqual({
        kind: 'PARTICIPANT_ANSWERED',
        userId: bob.id,
        meeting: { id: inside },
        participant: { status: 'DECLINED', answerReason: 'Holiday in Lisbon' },
      });
    });

    it('declines an added participant, and open invitations when the period is made', async () => {
      const [alice, bob, carol] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
      const early = await meeting(alice, { startTime: at('07T15:00') }, [carol]);
      // Carol's period declines her open invitation at once, with its answer.
      await create(carol, { ...holiday, title: 'Parental leave' });
      expect(await answerOf(alice, early, carol)).toMatchObject({
        status: 'DECLINED',
        answerReason: 'Parental leave',
      });
      const later = await meeting(alice, { startTime: at('08T15:00') }, [bob]);
      await t.gql.data(ADD, { meetingId: later, userId: carol.id }, alice.token);
      expect(await settledAnswer(alice, later, carol)).toMatchObject({
        status: 'DECLINED',
        answerReason: 'Parental leave',
      });
      // Her own answer afterwards is hers: it carries no reason.
      await t.gql.data(APPROVE, { id: later }, carol.token);
      expect(await answerOf(alice, later, carol)).toMatchObject({
        status: 'ACCEPTED',
        answerReason: null,
      });
    });

    it('declines a series only when every occurrence is inside the period', async () => {
      const [alice, bob] = (await t.seed.users(2)) as [SeededUser, SeededUser];
      await create(bob, holiday);
      const within = await meeting(
        alice,
        { startTime: at('05T09:00'), recurrence: 'FREQ=DAILY;COUNT=3' },
        [bob],
      );
      const beyond = await meeting(
        alice,
        { startTime: at('08T09:00'), recurrence: 'FREQ=DAILY;COUNT=3' },
        [bob],
      );
      expect(await settledAnswer(alice, within, bob)).toMatchObject({ status: 'DECLINED' });
      expect(await settledAnswer(alice, beyond, bob, 1000)).toMatchObject({ status: 'NEW' });
    });

    it('leaves invitations alone without declineInvitations, and for focus time', async () => {
      const [alice, bob, carol] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
      await create(bob, { ...holiday, declineInvitations: false });
      await create(carol, { ...holiday, kind: 'FOCUS', declineInvitations: null });
      const inside = await meeting(alice, { startTime: at('06T10:00') }, [bob, carol]);
      expect(await settledAnswer(alice, inside, bob, 1000)).toMatchObject({ status: 'NEW' });
      expect(await answerOf(alice, inside, carol)).toMatchObject({ status: 'NEW' });
    });
  });
});
