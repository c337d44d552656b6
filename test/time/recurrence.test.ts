import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

/** A meeting as these tests read it. */
interface TimedMeeting {
  id: string;
  startTime: string;
  endTime: string;
  durationMinutes: number;
  timeZone: string;
  description: string | null;
  recurrence: string | null;
}

interface ShownOccurrence {
  startTime: string;
  endTime: string;
  originalStartTime: string;
  cancelled: boolean;
}

const TIMED = 'id startTime endTime durationMinutes timeZone description recurrence';
const CREATE = `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { ${TIMED} } }
}`;
const OCCURRENCES = `query ($id: UUID!, $from: DateTime!, $to: DateTime!) {
  meeting(meetingId: $id) { occurrences(from: $from, to: $to) { startTime endTime originalStartTime cancelled } }
}`;
const CANCEL = `mutation ($input: CancelOccurrenceInput!) {
  cancelOccurrence(input: $input) { meeting { id } occurrence { startTime originalStartTime cancelled } }
}`;
const MOVE = `mutation ($input: MoveOccurrenceInput!) {
  moveOccurrence(input: $input) { meeting { id } occurrence { startTime endTime originalStartTime cancelled } }
}`;
const RESCHEDULE = `mutation ($input: RescheduleMeetingInput!) {
  rescheduleMeeting(input: $input) { meeting { ${TIMED} status } }
}`;

const starts = (list: ShownOccurrence[]) => list.map((occurrence) => occurrence.startTime);

describe('meeting time: duration, zones, recurrence and single occurrences', () => {
  const t = useTestApp();
  let owner: SeededUser;
  let guest: SeededUser;

  beforeAll(async () => {
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });

  const create = (meeting: Record<string, unknown>, token = owner.token) =>
    t.gql.request<{ createMeeting: { meeting: TimedMeeting } }>(
      CREATE,
      {
        meeting: { title: 'Planning session', location: 'Room 101, HQ', ...meeting },
        participants: [{ userId: guest.id }],
      },
      token,
    );

  async function created(meeting: Record<string, unknown>): Promise<TimedMeeting> {
    const result = await create(meeting);
    expect(result.errors).toBeUndefined();
    return result.data?.createMeeting.meeting as TimedMeeting;
  }

  async function occurrences(id: string, from: string, to: string): Promise<ShownOccurrence[]> {
    const data = await t.gql.data<{ meeting: { occurrences: ShownOccurrence[] } }>(
      OCCURRENCES,
      { id, from, to },
      owner.token,
    );
    return data.meeting.occurrences;
  }

  it('gives a meeting 60 minutes in UTC unless told otherwise', async () => {
    const meeting = await created({ startTime: '2027-05-03T10:00:00.000Z' });
    expect(meeting).toMatchObject({
      durationMinutes: 60,
      timeZone: 'UTC',
      endTime: '2027-05-03T11:00:00.000Z',
      description: null,
      recurrence: null,
    });
    expect(
      starts(await occurrences(meeting.id, '2027-05-01T00:00:00Z', '2027-05-10T00:00:00Z')),
    ).toEqual(['2027-05-03T10:00:00.000Z']);
  });

  it('stores duration, zone (as the zone database spells it) and description', async () => {
    const meeting = await created({
      startTime: '2027-05-03T10:00:00.000Z',
      durationMinutes: 45,
      timeZone: 'europe/berlin',
      description: '  Quarterly numbers  ',
    });
    expect(meeting).toMatchObject({
      durationMinutes: 45,
      timeZone: 'Europe/Berlin',
      endTime: '2027-05-03T10:45:00.000Z',
      description: 'Quarterly numbers',
    });
  });

  it.each([
    ['an unknown zone', { timeZone: 'Mars/Olympus_Mons' }, 'meeting.timeZone', 'INVALID_TIME_ZONE'],
    ['a bare offset', { timeZone: '+01:00' }, 'meeting.timeZone', 'INVALID_TIME_ZONE'],
    ['4 minutes', { durationMinutes: 4 }, 'meeting.durationMinutes', 'TOO_SMALL'],
    ['a day and a minute', { durationMinutes: 1441 }, 'meeting.durationMinutes', 'TOO_LARGE'],
    ['a long description', { description: 'x'.repeat(2001) }, 'meeting.description', 'TOO_LONG'],
    ['an hourly rule', { recurrence: 'FREQ=HOURLY' }, 'meeting.recurrence', 'INVALID_RECURRENCE'],
    ['a yearly rule', { recurrence: 'FREQ=YEARLY' }, 'meeting.recurrence', 'INVALID_RECURRENCE'],
    [
      'COUNT with UNTIL',
      { recurrence: 'FREQ=DAILY;COUNT=3;UNTIL=20270601T000000Z' },
      'meeting.recurrence',
      'INVALID_RECURRENCE',
    ],
    [
      'an unknown part',
      { recurrence: 'FREQ=DAILY;BYHOUR=9' },
      'meeting.recurrence',
      'INVALID_RECURRENCE',
    ],
    [
      'a start the rule does not give (a Monday, rule on Tuesdays)',
      { recurrence: 'FREQ=WEEKLY;BYDAY=TU' },
      'meeting.recurrence',
      'INVALID_RECURRENCE',
    ],
  ])('refuses %s', async (_case, fields, path, reason) => {
    const result = await create({ startTime: '2027-03-22T08:00:00.000Z', ...fields });
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { [path]: reason },
    });
  });

  it('keeps a weekly 09:00 Europe/Berlin series at 09:00 local across daylight saving', async () => {
    const series = await created({
      startTime: '2027-03-22T08:00:00.000Z',
      timeZone: 'Europe/Berlin',
      recurrence: 'rrule:freq=weekly;byday=mo',
    });
    expect(series.recurrence).toBe('FREQ=WEEKLY;BYDAY=MO');
    // Summer time began on Sunday 2027-03-28: 09:00 in Berlin is 07:00Z from then on.
    const spring = await occurrences(series.id, '2027-03-15T00:00:00Z', '2027-04-06T00:00:00Z');
    expect(starts(spring)).toEqual([
      '2027-03-22T08:00:00.000Z',
      '2027-03-29T07:00:00.000Z',
      '2027-04-05T07:00:00.000Z',
    ]);
    expect(spring[1]).toMatchObject({ endTime: '2027-03-29T08:00:00.000Z', cancelled: false });
    // It ended on Sunday 2027-10-31: 08:00Z again.
    const autumn = await occurrences(series.id, '2027-10-20T00:00:00Z', '2027-11-09T00:00:00Z');
    expect(starts(autumn)).toEqual([
      '2027-10-25T07:00:00.000Z',
      '2027-11-01T08:00:00.000Z',
      '2027-11-08T08:00:00.000Z',
    ]);
  });

  it('skips the months without a 31st in a MONTHLY;BYMONTHDAY=31 series', async () => {
    const series = await created({
      startTime: '2027-01-31T10:00:00.000Z',
      recurrence: 'FREQ=MONTHLY;BYMONTHDAY=31',
    });
    const year = await occurrences(series.id, '2027-01-01T00:00:00Z', '2028-01-01T00:00:00Z');
    expect(starts(year).map((start) => start.slice(0, 10))).toEqual([
      '2027-01-31',
      '2027-03-31',
      '2027-05-31',
      '2027-07-31',
      '2027-08-31',
      '2027-10-31',
      '2027-12-31',
    ]);
  });

  it('ends a series at its COUNT or UNTIL', async () => {
    const counted = await created({
      startTime: '2027-06-01T09:00:00.000Z',
      recurrence: 'FREQ=DAILY;INTERVAL=2;COUNT=3',
    });
    expect(
      starts(await occurrences(counted.id, '2027-05-01T00:00:00Z', '2027-07-01T00:00:00Z')),
    ).toEqual(['2027-06-01T09:00:00.000Z', '2027-06-03T09:00:00.000Z', '2027-06-05T09:00:00.000Z']);
    const until = await created({
      startTime: '2027-06-01T09:00:00.000Z',
      timeZone: 'America/New_York',
      recurrence: 'FREQ=WEEKLY;UNTIL=20270615',
    });
    // UNTIL as a date: through the end of that day in the meeting's zone.
    expect(
      starts(await occurrences(until.id, '2027-05-01T00:00:00Z', '2027-07-01T00:00:00Z')),
    ).toEqual(['2027-06-01T09:00:00.000Z', '2027-06-08T09:00:00.000Z', '2027-06-15T09:00:00.000Z']);
  });

  it('bounds an occurrences window', async () => {
    const daily = await created({
      startTime: '2027-02-01T09:00:00.000Z',
      recurrence: 'FREQ=DAILY',
    });
    const refusal = async (from: string, to: string) =>
      (await t.gql.request(OCCURRENCES, { id: daily.id, from, to }, owner.token)).errors?.[0]
        ?.extensions;
    expect(await refusal('2027-03-01T00:00:00Z', '2027-03-01T00:00:00Z')).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { to: 'TOO_SMALL' },
    });
    expect(await refusal('2027-03-01T00:00:00Z', '2028-03-02T00:00:00Z')).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { to: 'TOO_LARGE' },
    });
    const year = await occurrences(daily.id, '2027-02-01T00:00:00Z', '2028-02-01T00:00:00Z');
    // A year of a daily rule: 365 (no rule of the subset reaches the cap of 500 in 366 days).
    expect(year).toHaveLength(365);
    expect(year[0]?.startTime).toBe('2027-02-01T09:00:00.000Z');
  });

  describe('single occurrences', () => {
    let series: TimedMeeting;

    beforeAll(async () => {
      series = await created({
        startTime: '2027-03-22T08:00:00.000Z',
        timeZone: 'Europe/Berlin',
        recurrence: 'FREQ=WEEKLY;BYDAY=MO;COUNT=10',
      });
    });

    const change = (query: string, input: Record<string, unknown>, user = owner) =>
      t.gql.request<Record<string, { occurrence: ShownOccurrence }>>(query, { input }, user.token);

    it('cancels one and moves another, and the series shows both', async () => {
      const cancelled = await change(CANCEL, {
        meetingId: series.id,
        originalStartTime: '2027-03-29T07:00:00Z',
      });
      expect(cancelled.errors).toBeUndefined();
      expect(cancelled.data?.['cancelOccurrence']?.occurrence).toEqual({
        startTime: '2027-03-29T07:00:00.000Z',
        originalStartTime: '2027-03-29T07:00:00.000Z',
        cancelled: true,
      });
      const moved = await change(MOVE, {
        meetingId: series.id,
        originalStartTime: '2027-04-05T07:00:00Z',
        startTime: '2027-04-06T12:30:00Z',
      });
      expect(moved.errors).toBeUndefined();
      expect(moved.data?.['moveOccurrence']?.occurrence).toEqual({
        startTime: '2027-04-06T12:30:00.000Z',
        endTime: '2027-04-06T13:30:00.000Z',
        originalStartTime: '2027-04-05T07:00:00.000Z',
        cancelled: false,
      });
      const listed = await occurrences(series.id, '2027-03-20T00:00:00Z', '2027-04-13T00:00:00Z');
      expect(listed).toEqual([
        {
          startTime: '2027-03-22T08:00:00.000Z',
          endTime: '2027-03-22T09:00:00.000Z',
          originalStartTime: '2027-03-22T08:00:00.000Z',
          cancelled: false,
        },
        {
          startTime: '2027-03-29T07:00:00.000Z',
          endTime: '2027-03-29T08:00:00.000Z',
          originalStartTime: '2027-03-29T07:00:00.000Z',
          cancelled: true,
        },
        {
          startTime: '2027-04-06T12:30:00.000Z',
          endTime: '2027-04-06T13:30:00.000Z',
          originalStartTime: '2027-04-05T07:00:00.000Z',
          cancelled: false,
        },
        {
          startTime: '2027-04-12T07:00:00.000Z',
          endTime: '2027-04-12T08:00:00.000Z',
          originalStartTime: '2027-04-12T07:00:00.000Z',
          cancelled: false,
        },
      ]);
      // A window that holds only the moved time finds it through its change.
      expect(
        starts(await occurrences(series.id, '2027-04-06T00:00:00Z', '2027-04-07T00:00:00Z')),
      ).toEqual(['2027-04-06T12:30:00.000Z']);
      expect(await occurrences(series.id, '2027-04-05T00:00:00Z', '2027-04-06T00:00:00Z')).toEqual(
        [],
      );
    });

    it('refuses an occurrence the series does not have, a single meeting and a guest', async () => {
      const notAnOccurrence = await change(CANCEL, {
        meetingId: series.id,
        originalStartTime: '2027-03-23T07:00:00Z',
      });
      expect(notAnOccurrence.errors?.[0]?.extensions).toMatchObject({
        code: 'NOT_FOUND',
        reason: 'OCCURRENCE_NOT_FOUND',
      });
      const single = await created({ startTime: '2027-05-03T10:00:00.000Z' });
      const notRecurring = await change(CANCEL, {
        meetingId: single.id,
        originalStartTime: '2027-05-03T10:00:00Z',
      });
      expect(notRecurring.errors?.[0]?.extensions).toMatchObject({
        code: 'CONFLICT',
        reason: 'MEETING_NOT_RECURRING',
      });
      const byGuest = await change(
        MOVE,
        {
          meetingId: series.id,
          originalStartTime: '2027-04-12T07:00:00Z',
          startTime: '2027-04-13T07:00:00Z',
        },
        guest,
      );
      expect(byGuest.errors?.[0]?.extensions).toMatchObject({
        code: 'FORBIDDEN',
        reason: 'ONLY_MEETING_OWNER_CAN_RESCHEDULE',
      });
    });

    it('drops the changed occurrences when the series is rescheduled', async () => {
      const result = await t.gql.request<{ rescheduleMeeting: { meeting: TimedMeeting } }>(
        RESCHEDULE,
        {
          input: {
            meetingId: series.id,
            startTime: '2027-03-23T08:00:00Z',
            recurrence: 'FREQ=WEEKLY;BYDAY=TU;COUNT=3',
            durationMinutes: 30,
          },
        },
        owner.token,
      );
      expect(result.errors).toBeUndefined();
      expect(result.data?.rescheduleMeeting.meeting).toMatchObject({
        startTime: '2027-03-23T08:00:00.000Z',
        endTime: '2027-03-23T08:30:00.000Z',
        durationMinutes: 30,
        timeZone: 'Europe/Berlin',
        recurrence: 'FREQ=WEEKLY;BYDAY=TU;COUNT=3',
      });
      const listed = await occurrences(series.id, '2027-03-01T00:00:00Z', '2027-05-01T00:00:00Z');
      expect(listed.map((o) => [o.startTime, o.cancelled])).toEqual([
        ['2027-03-23T08:00:00.000Z', false],
        ['2027-03-30T07:00:00.000Z', false],
        ['2027-04-06T07:00:00.000Z', false],
      ]);
    });
  });

  it('reschedules the timing only when told, and refuses a rule the new start does not fit', async () => {
    const meeting = await created({ startTime: '2027-05-03T10:00:00.000Z', durationMinutes: 30 });
    const again = await t.gql.request<{
      rescheduleMeeting: { meeting: TimedMeeting & { status: string } };
    }>(
      RESCHEDULE,
      { input: { meetingId: meeting.id, startTime: '2027-05-04T10:00:00Z' } },
      owner.token,
    );
    expect(again.data?.rescheduleMeeting.meeting).toMatchObject({
      durationMinutes: 30,
      timeZone: 'UTC',
      endTime: '2027-05-04T10:30:00.000Z',
    });
    const misfit = await t.gql.request(
      RESCHEDULE,
      {
        input: {
          meetingId: meeting.id,
          startTime: '2027-05-04T10:00:00Z',
          recurrence: 'FREQ=WEEKLY;BYDAY=MO',
        },
      },
      owner.token,
    );
    expect(misfit.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { 'input.recurrence': 'INVALID_RECURRENCE' },
    });
    const zone = await t.gql.request(
      RESCHEDULE,
      {
        input: {
          meetingId: meeting.id,
          startTime: '2027-05-04T10:00:00Z',
          timeZone: 'Nowhere/Land',
        },
      },
      owner.token,
    );
    expect(zone.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { 'input.timeZone': 'INVALID_TIME_ZONE' },
    });
  });
});
