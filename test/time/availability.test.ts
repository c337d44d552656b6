import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

interface Range {
  start: string;
  end: string;
}
interface FreeBusy {
  userId: string;
  busy: Range[] | null;
}
interface KindRange extends Range {
  kind: string;
}
interface Suggestion {
  startTime: string;
  endTime: string;
  availableUserIds: string[];
  unavailableUserIds: string[];
}

const CONFLICTS = 'conflicts { userId busy { start end } }';
const CREATE = `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { id } ${CONFLICTS} }
}`;
const APPROVE = `mutation ($id: UUID!) { approveMeeting(input: { meetingId: $id }) { meeting { id } } }`;
const DECLINE = `mutation ($id: UUID!) { declineMeeting(input: { meetingId: $id }) { meeting { id } } }`;
const CANCEL = `mutation ($id: UUID!) { cancelMeeting(input: { meetingId: $id }) { meeting { status } } }`;
const CANCEL_ONE = `mutation ($input: CancelOccurrenceInput!) { cancelOccurrence(input: $input) { meeting { id } } }`;
const MOVE_ONE = `mutation ($input: MoveOccurrenceInput!) { moveOccurrence(input: $input) { meeting { id } } }`;
const RESCHEDULE = `mutation ($input: RescheduleMeetingInput!) {
  rescheduleMeeting(input: $input) { meeting { id } ${CONFLICTS} }
}`;
const ADD = `mutation ($meetingId: UUID!, $userId: UUID!) {
  addParticipant(input: { meetingId: $meetingId, userId: $userId }) { participant { id } ${CONFLICTS} }
}`;
const MEETING_CONFLICTS = `query ($id: UUID!) { meeting(meetingId: $id) { ${CONFLICTS} } }`;
const FREE_BUSY = `query ($userIds: [UUID!]!, $from: DateTime!, $to: DateTime!) {
  freeBusy(userIds: $userIds, from: $from, to: $to) { userId busy { start end kind } }
}`;
const SUGGEST = `query ($input: SuggestMeetingTimesInput!) {
  suggestMeetingTimes(input: $input) { startTime endTime availableUserIds unavailableUserIds }
}`;
const SHARE = `mutation ($share: Boolean!) { updateProfile(input: { shareAvailability: $share }) { user { shareAvailability } } }`;

const at = (time: string) => `2027-06-${time}:00.000Z`;
const range = (start: string, end: string): Range => ({ start: at(start), end: at(end) });
const busyRange = (start: string, end: string, kind = 'BUSY'): KindRange => ({
  ...range(start, end),
  kind,
});

describe('free/busy, conflicts and suggested times', () => {
  const t = useTestApp();
  let alice: SeededUser;
  let bob: SeededUser;
  let carol: SeededUser;
  let dave: SeededUser;
  let erin: SeededUser;
  let series: string;

  /** Creates a meeting; answers its id. */
  async function meeting(
    owner: SeededUser,
    fields: Record<string, unknown>,
    participants: Array<{ userId: string; status?: string }>,
  ): Promise<string> {
    const data = await t.gql.data<{ createMeeting: { meeting: { id: string } } }>(
      CREATE,
      { meeting: { title: 'Team planning', location: 'Room 101, HQ', ...fields }, participants },
      owner.token,
    );
    return data.createMeeting.meeting.id;
  }

  const freeBusy = (caller: SeededUser, userIds: string[], from: string, to: string) =>
    t.gql.request<{ freeBusy: FreeBusy[] }>(FREE_BUSY, { userIds, from, to }, caller.token);

  const suggest = (caller: SeededUser, input: Record<string, unknown>) =>
    t.gql.request<{ suggestMeetingTimes: Suggestion[] }>(SUGGEST, { input }, caller.token);

  beforeAll(async () => {
    [alice, bob, carol, dave, erin] = (await t.seed.users(5)) as [
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
    ];
    // Monday 2027-06-07. Bob owns 10:00–11:00 and has accepted carol's 10:30–11:30.
    await meeting(bob, { startTime: at('07T10:00') }, [{ userId: alice.id }]);
    await meeting(carol, { startTime: at('07T10:30') }, [{ userId: bob.id, status: 'ACCEPTED' }]);
    // An open invitation shows as tentative; a declined one and a cancelled meeting not at all.
    await meeting(carol, { startTime: at('07T14:00') }, [{ userId: bob.id }]);
    const declined = await meeting(carol, { startTime: at('07T15:00') }, [{ userId: bob.id }]);
    await t.gql.data(DECLINE, { id: declined }, bob.token);
    const cancelled = await meeting(carol, { startTime: at('07T16:00') }, [
      { userId: bob.id, status: 'ACCEPTED' },
      { userId: erin.id },
    ]);
    await t.gql.data(CANCEL, { id: cancelled }, carol.token);
    // Erin's weekly series on Tuesdays at 09:00 UTC, three times; bob accepts it. The second is
    // cancelled, the third moved to Wednesday 13:00.
    series = await meeting(erin, { startTime: at('08T09:00'), recurrence: 'FREQ=WEEKLY;COUNT=3' }, [
      { userId: bob.id },
    ]);
    await t.gql.data(APPROVE, { id: series }, bob.token);
    await t.gql.data(
      CANCEL_ONE,
      { input: { meetingId: series, originalStartTime: at('15T09:00') } },
      erin.token,
    );
    await t.gql.data(
      MOVE_ONE,
      {
        input: { meetingId: series, originalStartTime: at('22T09:00'), startTime: at('23T13:00') },
      },
      erin.token,
    );
    await t.gql.data(SHARE, { share: false }, dave.token);
    await meeting(dave, { startTime: at('07T12:00') }, [{ userId: erin.id }]);
  });

  describe('freeBusy', () => {
    it('merges overlaps and expands series, leaving cancelled occurrences out', async () => {
      const result = await freeBusy(alice, [bob.id], at('07T00:00'), at('30T00:00'));
      expect(result.errors).toBeUndefined();
      expect(result.data?.freeBusy).toEqual([
        {
          userId: bob.id,
          busy: [
            busyRange('07T10:00', '07T11:30'),
            busyRange('07T14:00', '07T15:00', 'TENTATIVE'),
            busyRange('08T09:00', '08T10:00'),
            busyRange('23T13:00', '23T14:00'),
          ],
        },
      ]);
    });

    it('cuts ranges to the window', async () => {
      const result = await freeBusy(alice, [bob.id], at('07T10:30'), at('08T09:30'));
      expect(result.data?.freeBusy[0]?.busy).toEqual([
        busyRange('07T10:30', '07T11:30'),
        busyRange('07T14:00', '07T15:00', 'TENTATIVE'),
        busyRange('08T09:00', '08T09:30'),
      ]);
    });

    it('answers busy: null for a user who does not share, except to themselves', async () => {
      const toAlice = await freeBusy(alice, [dave.id, erin.id], at('07T00:00'), at('08T00:00'));
      expect(toAlice.data?.freeBusy).toEqual([
        { userId: dave.id, busy: null },
        // Erin has not answered dave's invitation.
        { userId: erin.id, busy: [busyRange('07T12:00', '07T13:00', 'TENTATIVE')] },
      ]);
      const toDave = await freeBusy(dave, [dave.id], at('07T00:00'), at('08T00:00'));
      expect(toDave.data?.freeBusy).toEqual([
        { userId: dave.id, busy: [busyRange('07T12:00', '07T13:00')] },
      ]);
    });

    it('refuses unknown users, too many users and too wide a window', async () => {
      const unknown = await freeBusy(
        alice,
        ['00000000-0000-4000-8000-000000000000'],
        at('07T00:00'),
        at('08T00:00'),
      );
      expect(unknown.errors?.[0]?.extensions).toMatchObject({
        code: 'NOT_FOUND',
        reason: 'USER_NOT_FOUND',
      });
      const many = Array.from({ length: 51 }, () => bob.id);
      expect(
        (await freeBusy(alice, many, at('07T00:00'), at('08T00:00'))).errors?.[0]?.extensions,
      ).toMatchObject({ code: 'BAD_USER_INPUT', fields: { userIds: 'TOO_LONG' } });
      const wide = await freeBusy(alice, [bob.id], '2027-06-01T00:00:00Z', '2027-08-02T00:00:01Z');
      expect(wide.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        fields: { to: 'TOO_LARGE' },
      });
      const backwards = await freeBusy(alice, [bob.id], at('08T00:00'), at('07T00:00'));
      expect(backwards.errors?.[0]?.extensions).toMatchObject({ fields: { to: 'TOO_SMALL' } });
    });

    it('reads the same few statements for 1 meeting as for 30', async () => {
      const [busy] = (await t.seed.users(1)) as [SeededUser];
      const window = ['2027-09-01T00:00:00Z', '2027-09-15T00:00:00Z'] as const;
      const statements = () =>
        t.countQueries(() => freeBusy(alice, [busy.id, bob.id, carol.id], ...window));
      await meeting(busy, { startTime: '2027-09-01T09:00:00Z' }, [{ userId: alice.id }]);
      const one = await statements();
      for (let day = 2; day <= 30; day += 1) {
        await meeting(
          busy,
          {
            startTime: `2027-09-02T${String(day % 10).padStart(2, '0')}:00:00Z`,
            recurrence: 'FREQ=DAILY;COUNT=10',
          },
          [{ userId: alice.id }],
        );
      }
      const many = await statements();
      expect(many).toBe(one);
      expect(many).toBeLessThanOrEqual(3);
    });
  });

  describe('conflicts', () => {
    let planned: string;

    it('warns of the overlapping time of participants who have not declined, on create', async () => {
      const data = await t.gql.data<{
        createMeeting: { meeting: { id: string }; conflicts: FreeBusy[] };
      }>(
        CREATE,
        {
          meeting: {
            title: 'Design review',
            location: 'Room 101, HQ',
            startTime: at('07T10:15'),
            durationMinutes: 45,
          },
          participants: [
            { userId: bob.id },
            // Carol owns a meeting then, but declines this one: never a conflict.
            { userId: carol.id, status: 'DECLINED' },
            // Dave keeps his time to himself.
            { userId: dave.id },
          ],
        },
        alice.token,
      );
      planned = data.createMeeting.meeting.id;
      expect(data.createMeeting.conflicts).toEqual([
        { userId: bob.id, busy: [range('07T10:00', '07T11:30')] },
      ]);
      const read = await t.gql.data<{ meeting: { conflicts: FreeBusy[] } }>(
        MEETING_CONFLICTS,
        { id: planned },
        alice.token,
      );
      expect(read.meeting.conflicts).toEqual(data.createMeeting.conflicts);
    });

    it('warns again on reschedule, and of a series occurrence', async () => {
      const free = await t.gql.data<{ rescheduleMeeting: { conflicts: FreeBusy[] } }>(
        RESCHEDULE,
        // Carol's answer went back to new with the reschedule; nobody shared is busy at 13:00.
        { input: { meetingId: planned, startTime: at('07T13:00') } },
        alice.token,
      );
      expect(free.rescheduleMeeting.conflicts).toEqual([]);
      const clash = await t.gql.data<{ rescheduleMeeting: { conflicts: FreeBusy[] } }>(
        RESCHEDULE,
        { input: { meetingId: planned, startTime: at('08T09:30') } },
        alice.token,
      );
      expect(clash.rescheduleMeeting.conflicts).toEqual([
        { userId: bob.id, busy: [range('08T09:00', '08T10:00')] },
      ]);
    });

    it("warns of the added participant's time on addParticipant", async () => {
      const added = await t.gql.data<{ addParticipant: { conflicts: FreeBusy[] } }>(
        ADD,
        { meetingId: planned, userId: erin.id },
        alice.token,
      );
      expect(added.addParticipant.conflicts).toEqual([
        { userId: erin.id, busy: [range('08T09:00', '08T10:00')] },
      ]);
    });

    it('looks at the next occurrence of a series', async () => {
      // Bob accepts alice's meeting, moved onto the series' next occurrence (Tuesday 09:00).
      await t.gql.data(APPROVE, { id: planned }, bob.token);
      const conflicts = await t.gql.data<{ meeting: { conflicts: FreeBusy[] } }>(
        MEETING_CONFLICTS,
        { id: series },
        erin.token,
      );
      expect(conflicts.meeting.conflicts).toEqual([
        { userId: bob.id, busy: [range('08T09:30', '08T10:15')] },
      ]);
    });
  });

  describe('suggestMeetingTimes', () => {
    const monday = { from: at('07T00:00'), to: at('08T00:00'), durationMinutes: 60, first: 50 };

    it('avoids every busy range, and a slot may end at the end of working hours, not after', async () => {
      const result = await suggest(alice, { ...monday, userIds: [bob.id] });
      expect(result.errors).toBeUndefined();
      const slots = result.data?.suggestMeetingTimes ?? [];
      expect(slots.map((slot) => slot.startTime.slice(11, 16))).toEqual([
        '09:00',
        ...[
          '11:30',
          '11:45',
          '12:00',
          '12:15',
          '12:30',
          '12:45',
          '13:00',
          '13:15',
          '13:30',
          '13:45',
        ],
        ...['14:00', '14:15', '14:30', '14:45', '15:00', '15:15', '15:30', '15:45', '16:00'],
      ]);
      for (const slot of slots) {
        expect(slot.availableUserIds.sort()).toEqual([alice.id, bob.id].sort());
        expect(slot.unavailableUserIds).toEqual([]);
      }
      expect(slots.at(-1)).toMatchObject({ startTime: at('07T16:00'), endTime: at('07T17:00') });
    });

    it('ranks by attendees, then time, when fewer than all are enough', async () => {
      const result = await suggest(alice, {
        ...monday,
        userIds: [bob.id],
        minimumAttendeePercentage: 50,
        first: 25,
      });
      const slots = result.data?.suggestMeetingTimes ?? [];
      expect(slots).toHaveLength(25);
      expect(slots.slice(0, 20).every((slot) => slot.availableUserIds.length === 2)).toBe(true);
      expect(
        slots.slice(20).map((slot) => [slot.startTime.slice(11, 16), slot.unavailableUserIds]),
      ).toEqual([
        ['09:15', [bob.id]],
        ['09:30', [bob.id]],
        ['09:45', [bob.id]],
        ['10:00', [bob.id]],
        ['10:15', [bob.id]],
      ]);
    });

    it('keeps working hours in wall-clock time across a daylight-saving change', async () => {
      const result = await suggest(alice, {
        userIds: [],
        durationMinutes: 60,
        from: '2027-03-26T00:00:00Z',
        to: '2027-03-30T00:00:00Z',
        timeZone: 'Europe/Berlin',
        workingHours: { start: '09:00', end: '10:00' },
        weekdays: ['FR', 'MO'],
      });
      expect(result.data?.suggestMeetingTimes.map((slot) => slot.startTime)).toEqual([
        '2027-03-26T08:00:00.000Z',
        '2027-03-29T07:00:00.000Z',
      ]);
    });

    it('counts a user who does not share as free', async () => {
      const result = await suggest(alice, { ...monday, userIds: [dave.id], first: 1 });
      expect(result.data?.suggestMeetingTimes[0]?.availableUserIds.sort()).toEqual(
        [alice.id, dave.id].sort(),
      );
    });

    it('refuses bad working hours, zones and windows', async () => {
      const refusal = async (input: Record<string, unknown>) =>
        (await suggest(alice, { ...monday, userIds: [bob.id], ...input })).errors?.[0]?.extensions;
      expect(await refusal({ workingHours: { start: '17:00', end: '09:00' } })).toMatchObject({
        fields: { 'input.workingHours.end': 'TOO_SMALL' },
      });
      expect(await refusal({ workingHours: { start: '9am', end: '17:00' } })).toMatchObject({
        fields: { 'input.workingHours.start': 'INVALID_FORMAT' },
      });
      expect(await refusal({ timeZone: 'Atlantis/Capital' })).toMatchObject({
        fields: { 'input.timeZone': 'INVALID_TIME_ZONE' },
      });
      expect(await refusal({ to: '2027-08-09T00:00:00Z' })).toMatchObject({
        fields: { 'input.to': 'TOO_LARGE' },
      });
    });

    it('reads a fixed number of statements for 10 users over 14 days', async () => {
      const users = [bob, carol, dave, erin].map((user) => user.id);
      const count = await t.countQueries(() =>
        suggest(alice, {
          userIds: users,
          durationMinutes: 30,
          from: at('07T00:00'),
          to: at('21T00:00'),
        }),
      );
      expect(count).toBeLessThanOrEqual(3);
    });
  });
});
