import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface Fit {
  userId: string;
  available: boolean;
  inWorkingHours: boolean;
}
interface Suggestion {
  startTime: string;
  endTime: string;
  availableUserIds: string[];
  unavailableUserIds: string[];
  attendees: Fit[];
}
interface Range {
  start: string;
  end: string;
  kind?: string;
}

const ZONE = `mutation ($zone: String!) { updateProfile(input: { timeZone: $zone }) { user { id } } }`;
const SUGGEST = `query ($input: SuggestMeetingTimesInput!) {
  suggestMeetingTimes(input: $input) {
    startTime endTime availableUserIds unavailableUserIds attendees { userId available inWorkingHours }
  }
}`;
const FREE_BUSY = `query ($userIds: [UUID!]!, $from: DateTime!, $to: DateTime!) {
  freeBusy(userIds: $userIds, from: $from, to: $to) { userId busy { start end kind } workingHours { start end } }
}`;
const AWAY = `mutation ($input: CreateAwayPeriodInput!) { createAwayPeriod(input: $input) { awayPeriod { id } } }`;
const CREATE_MEETING = `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { id } }
}`;

/** `YYYY-MM-DDTHH:00:00.000Z` for each day and each UTC hour given. */
const hours = (days: string[], utcHours: number[]): string[] =>
  days.flatMap((day) =>
    utcHours.map((hour) => `${day}T${String(hour).padStart(2, '0')}:00:00.000Z`),
  );
const weekdays =
  (...days: number[]) =>
  (month: string) =>
    days.map((day) => `2027-${month}-${String(day).padStart(2, '0')}`);

describe("everyone's own day: working hours in their zones, time away", () => {
  let t: TestApp;
  let berlin: SeededUser;
  let newYork: SeededUser;

  beforeAll(async () => {
    t = await startTestApp();
    [berlin, newYork] = (await t.seed.users(2)) as [SeededUser, SeededUser];
    await t.gql.data(ZONE, { zone: 'Europe/Berlin' }, berlin.token);
    await t.gql.data(ZONE, { zone: 'America/New_York' }, newYork.token);
  });
  afterAll(() => t.close());

  const suggest = async (caller: SeededUser, input: Record<string, unknown>) => {
    const result = await t.gql.request<{ suggestMeetingTimes: Suggestion[] }>(
      SUGGEST,
      { input: { durationMinutes: 60, stepMinutes: 60, first: 50, ...input } },
      caller.token,
    );
    expect(result.errors).toBeUndefined();
    return result.data?.suggestMeetingTimes ?? [];
  };
  const starts = async (from: string, to: string) =>
    (await suggest(berlin, { userIds: [newYork.id], from, to })).map((slot) => slot.startTime);

  describe('suggestMeetingTimes, Berlin with New York, default hours', () => {
    it('offers only 15:00 to 17:00 Berlin on weekdays in winter', async () => {
      // Berlin UTC+1 works 08–16 UTC, New York UTC-5 14–22 UTC.
      expect(await starts('2027-02-01T00:00:00Z', '2027-02-08T00:00:00Z')).toEqual(
        hours(weekdays(1, 2, 3, 4, 5)('02'), [14, 15]),
      );
    });

    it('moves the overlap with the March changes, New York first, Berlin two weeks later', async () => {
      // From 14 March New York is UTC-4 (13–21 UTC): 14:00–17:00 Berlin; from 28 March Berlin is
      // UTC+2 (07–15 UTC): 15:00–17:00 Berlin again.
      expect(await starts('2027-03-08T00:00:00Z', '2027-04-03T00:00:00Z')).toEqual([
        ...hours(weekdays(8, 9, 10, 11, 12)('03'), [14, 15]),
        ...hours(weekdays(15, 16, 17, 18, 19, 22, 23, 24, 25, 26)('03'), [13, 14, 15]),
        ...hours([...weekdays(29, 30, 31)('03'), ...weekdays(1, 2)('04')], [13, 14]),
      ]);
    });

    it('moves it back with the October and November changes', async () => {
      // Berlin is UTC+1 again from 31 October (08–16 UTC), New York UTC-5 from 7 November.
      expect(await starts('2027-10-25T00:00:00Z', '2027-11-13T00:00:00Z')).toEqual([
        ...hours(weekdays(25, 26, 27, 28, 29)('10'), [13, 14]),
        ...hours(weekdays(1, 2, 3, 4, 5)('11'), [13, 14, 15]),
        ...hours(weekdays(8, 9, 10, 11, 12)('11'), [14, 15]),
      ]);
    });

    it('says per attendee whether a slot is in their hours, and counts those outside as unavailable', async () => {
      const slots = await suggest(berlin, {
        userIds: [newYork.id],
        from: '2027-02-01T00:00:00Z',
        to: '2027-02-02T00:00:00Z',
        minimumAttendeePercentage: 50,
      });
      // 08–16 UTC for Berlin and 14–22 UTC for New York: both from 14:00, one of them otherwise.
      expect(slots.map((slot) => slot.startTime.slice(11, 13))).toEqual([
        '14',
        '15',
        '08',
        '09',
        '10',
        '11',
        '12',
        '13',
        '16',
        '17',
        '18',
        '19',
        '20',
        '21',
      ]);
      expect(slots[0]?.attendees).toEqual([
        { userId: berlin.id, available: true, inWorkingHours: true },
        { userId: newYork.id, available: true, inWorkingHours: true },
      ]);
      expect(slots[2]).toMatchObject({
        availableUserIds: [berlin.id],
        unavailableUserIds: [newYork.id],
        attendees: [
          { userId: berlin.id, available: true, inWorkingHours: true },
          { userId: newYork.id, available: false, inWorkingHours: false },
        ],
      });
    });

    it('keeps an explicit window as an override, flagging who is outside their hours', async () => {
      const slots = await suggest(berlin, {
        userIds: [newYork.id],
        from: '2027-02-01T00:00:00Z',
        to: '2027-02-02T00:00:00Z',
        timeZone: 'Europe/Berlin',
        workingHours: { start: '09:00', end: '11:00' },
      });
      expect(slots.map((slot) => slot.startTime)).toEqual(hours(['2027-02-01'], [8, 9]));
      expect(slots[0]?.attendees).toEqual([
        { userId: berlin.id, available: true, inWorkingHours: true },
        { userId: newYork.id, available: true, inWorkingHours: false },
      ]);
    });

    it('honours working hours a user set, several a day', async () => {
      const [early] = (await t.seed.users(1)) as [SeededUser];
      await t.gql.data(
        `mutation ($hours: [WorkingPeriodInput!]) { updateProfile(input: { timeZone: "Asia/Tokyo", workingHours: $hours }) { user { id } } }`,
        {
          hours: [
            { weekday: 'MO', start: '07:00', end: '09:00' },
            { weekday: 'MO', start: '22:00', end: '24:00' },
          ],
        },
        early.token,
      );
      // Tokyo (UTC+9) Monday 07–09 is Sunday 22–24 UTC; 22–24 is Monday 13–15 UTC: only the
      // latter meets Berlin's Monday (08–16 UTC).
      const slots = await suggest(berlin, {
        userIds: [early.id],
        from: '2027-01-31T00:00:00Z',
        to: '2027-02-02T00:00:00Z',
      });
      expect(slots.map((slot) => slot.startTime)).toEqual(hours(['2027-02-01'], [13, 14]));
    });
  });

  describe('time away and invitations', () => {
    it('keeps slots out of time away and shows it in freeBusy by kind, with working hours', async () => {
      const [traveller, host] = (await t.seed.users(2)) as [SeededUser, SeededUser];
      await t.gql.data(ZONE, { zone: 'Europe/Berlin' }, traveller.token);
      await t.gql.data(
        AWAY,
        {
          input: {
            start: '2027-02-02T00:00:00Z',
            end: '2027-02-03T00:00:00Z',
            kind: 'OUT_OF_OFFICE',
            title: 'Conference',
          },
        },
        traveller.token,
      );
      await t.gql.data(
        AWAY,
        {
          input: {
            start: '2027-02-01T09:00:00Z',
            end: '2027-02-01T11:00:00Z',
            kind: 'FOCUS',
            title: 'Writing',
          },
        },
        traveller.token,
      );
      // The host invites the traveller on Monday 12:00 UTC, not yet answered, and owns 10:00.
      await t.gql.data(
        CREATE_MEETING,
        {
          meeting: { title: 'Planning', location: 'Room 7', startTime: '2027-02-01T12:00:00Z' },
          participants: [{ userId: traveller.id }],
        },
        host.token,
      );
      const slots = await suggest(traveller, {
        userIds: [],
        from: '2027-02-01T00:00:00Z',
        to: '2027-02-04T00:00:00Z',
      });
      // Monday 08–16 UTC without focus time (09–11); Tuesday away; Wednesday whole. An open
      // invitation holds nothing back.
      expect(slots.map((slot) => slot.startTime)).toEqual([
        ...hours(['2027-02-01'], [8, 11, 12, 13, 14, 15]),
        ...hours(['2027-02-03'], [8, 9, 10, 11, 12, 13, 14, 15]),
      ]);
      const window = { from: '2027-02-01T00:00:00Z', to: '2027-02-03T00:00:00Z' };
      const statements = await t.countQueries(async () => {
        const seen = await t.gql.data<{
          freeBusy: Array<{ userId: string; busy: Range[]; workingHours: Range[] }>;
        }>(FREE_BUSY, { userIds: [traveller.id, host.id], ...window }, berlin.token);
        expect(seen.freeBusy).toEqual([
          {
            userId: traveller.id,
            busy: [
              { start: '2027-02-01T09:00:00.000Z', end: '2027-02-01T11:00:00.000Z', kind: 'FOCUS' },
              {
                start: '2027-02-01T12:00:00.000Z',
                end: '2027-02-01T13:00:00.000Z',
                kind: 'TENTATIVE',
              },
              {
                start: '2027-02-02T00:00:00.000Z',
                end: '2027-02-03T00:00:00.000Z',
                kind: 'OUT_OF_OFFICE',
              },
            ],
            workingHours: [
              { start: '2027-02-01T08:00:00.000Z', end: '2027-02-01T16:00:00.000Z' },
              { start: '2027-02-02T08:00:00.000Z', end: '2027-02-02T16:00:00.000Z' },
            ],
          },
          {
            userId: host.id,
            busy: [
              { start: '2027-02-01T12:00:00.000Z', end: '2027-02-01T13:00:00.000Z', kind: 'BUSY' },
            ],
            // The host's zone is UTC.
            workingHours: [
              { start: '2027-02-01T09:00:00.000Z', end: '2027-02-01T17:00:00.000Z' },
              { start: '2027-02-02T09:00:00.000Z', end: '2027-02-02T17:00:00.000Z' },
            ],
          },
        ]);
      });
      expect(statements).toBeLessThanOrEqual(4);
    });

    it('shows where kinds overlap the one that weighs most', async () => {
      const [ada, ben] = (await t.seed.users(2)) as [SeededUser, SeededUser];
      // Ada owns 10:00–11:00 and is out of office 10:30–12:00.
      await t.gql.data(
        CREATE_MEETING,
        {
          meeting: { title: 'Planning', location: 'Room 7', startTime: '2027-02-01T10:00:00Z' },
          participants: [{ userId: ben.id }],
        },
        ada.token,
      );
      await t.gql.data(
        AWAY,
        {
          input: {
            start: '2027-02-01T10:30:00Z',
            end: '2027-02-01T12:00:00Z',
            kind: 'OUT_OF_OFFICE',
            title: 'Doctor',
          },
        },
        ada.token,
      );
      const seen = await t.gql.data<{ freeBusy: Array<{ busy: Range[] }> }>(
        FREE_BUSY,
        { userIds: [ada.id], from: '2027-02-01T00:00:00Z', to: '2027-02-02T00:00:00Z' },
        ben.token,
      );
      expect(seen.freeBusy[0]?.busy).toEqual([
        { start: '2027-02-01T10:00:00.000Z', end: '2027-02-01T10:30:00.000Z', kind: 'BUSY' },
        {
          start: '2027-02-01T10:30:00.000Z',
          end: '2027-02-01T12:00:00.000Z',
          kind: 'OUT_OF_OFFICE',
        },
      ]);
    });
  });
});
