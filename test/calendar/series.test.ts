import type { VEvent } from 'node-ical';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { CalendarClient } from './calendar-client';
import {
  address,
  attendeesOf,
  expandWithIcalJs,
  parameterOf,
  readWithIcalJs,
  readWithNodeIcal,
  valueOf,
  withParams,
} from './documents';

/*
 * A meeting in a calendar (issue 28), over real HTTP: a weekly series in America/New_York crossing
 * the spring change of the clocks (2027-03-14), one occurrence cancelled and one moved, answered
 * in a personal feed and on its own, and read back with ical.js and node-ical, property by
 * property.
 */

const OCCURRENCES = `query ($id: UUID!) {
  meeting(meetingId: $id) { occurrences(from: "2027-02-01T00:00:00Z", to: "2027-05-01T00:00:00Z") {
    startTime endTime cancelled } }
}`;

describe('a recurring meeting as iCalendar', () => {
  let t: TestApp;
  let calendar: CalendarClient;
  let owner: SeededUser;
  let accepting: SeededUser;
  let declining: SeededUser;
  let undecided: SeededUser;
  let stranger: SeededUser;
  let seriesId: string;

  beforeAll(async () => {
    t = await startTestApp({ PUBLIC_URL: 'https://meet.example.com/' });
    calendar = new CalendarClient(t);
    owner = await t.seed.user({ name: 'Ada Lovelace' });
    accepting = await t.seed.user({ name: 'Charles Babbage' });
    declining = await t.seed.user({ name: 'Mary Somerville' });
    undecided = await t.seed.user({ name: 'Augustus De Morgan' });
    stranger = await t.seed.user({ name: 'Not Invited At All' });
    // Mondays at 09:00 in New York, 45 minutes, through Monday 5 April (a date: that whole day).
    seriesId = await calendar.meeting(
      owner,
      {
        startTime: '2027-03-01T14:00:00.000Z',
        durationMinutes: 45,
        timeZone: 'America/New_York',
        recurrence: 'FREQ=WEEKLY;BYDAY=MO;UNTIL=20270405',
        description: 'Agenda: feeds, zones; and the rest',
        locationUrl: 'https://meet.example.com/room/101',
      },
      [accepting, declining, undecided],
    );
    await calendar.act('approveMeeting', seriesId, accepting);
    await calendar.act('declineMeeting', seriesId, declining);
    await t.gql.data(
      `mutation ($input: CancelOccurrenceInput!) { cancelOccurrence(input: $input) { meeting { id } } }`,
      { input: { meetingId: seriesId, originalStartTime: '2027-03-08T14:00:00Z' } },
      owner.token,
    );
    // Monday 22 March 09:00 EDT (13:00Z) to Tuesday 23 March 10:00 EDT.
    await t.gql.data(
      `mutation ($input: MoveOccurrenceInput!) { moveOccurrence(input: $input) { meeting { id } } }`,
      {
        input: {
          meetingId: seriesId,
          originalStartTime: '2027-03-22T13:00:00Z',
          startTime: '2027-03-23T14:00:00Z',
        },
      },
      owner.token,
    );
  });
  afterAll(() => t.close());

  /** Every property of the series' entries, as both parsers read them. */
  async function expectTheSeries(text: string): Promise<void> {
    const { zones, events } = readWithIcalJs(text);
    expect(zones.map((zone) => valueOf(zone, 'tzid'))).toEqual(['America/New_York']);
    const mine = events.filter((event) => valueOf(event, 'uid') === seriesId);
    const master = mine.find((event) => !event.hasProperty('recurrence-id'));
    const overrides = mine.filter((event) => event.hasProperty('recurrence-id'));
    expect(master).toBeDefined();
    expect(overrides).toHaveLength(1);
    const series = master!;
    const moved = overrides[0]!;
    const { meeting } = await t.gql.data<{ meeting: { updatedAt: string } }>(
      'query ($id: UUID!) { meeting(meetingId: $id) { updatedAt } }',
      { id: seriesId },
      owner.token,
    );
    const changed = meeting.updatedAt.replace(/\.\d{3}Z$/, 'Z');

    // ical.js: the properties as written.
    expect(parameterOf(series, 'dtstart', 'tzid')).toBe('America/New_York');
    expect(valueOf(series, 'dtstart')).toBe('2027-03-01T09:00:00');
    expect(parameterOf(series, 'dtend', 'tzid')).toBe('America/New_York');
    expect(valueOf(series, 'dtend')).toBe('2027-03-01T09:45:00');
    expect(valueOf(series, 'rrule')).toBe('FREQ=WEEKLY;BYDAY=MO;UNTIL=20270406T035959Z');
    expect(parameterOf(series, 'exdate', 'tzid')).toBe('America/New_York');
    expect(valueOf(series, 'exdate')).toBe('2027-03-08T09:00:00');
    expect(parameterOf(moved, 'recurrence-id', 'tzid')).toBe('America/New_York');
    expect(valueOf(moved, 'recurrence-id')).toBe('2027-03-22T09:00:00');
    expect(valueOf(moved, 'dtstart')).toBe('2027-03-23T10:00:00');
    expect(valueOf(moved, 'dtend')).toBe('2027-03-23T10:45:00');
    for (const event of [series, moved]) {
      expect(valueOf(event, 'summary')).toBe('Design review');
      expect(valueOf(event, 'description')).toBe('Agenda: feeds, zones; and the rest');
      expect(valueOf(event, 'location')).toBe('Room 101, HQ');
      expect(valueOf(event, 'url')).toBe('https://meet.example.com/room/101');
      expect(valueOf(event, 'status')).toBe('TENTATIVE');
      // Created, then one occurrence cancelled and one moved: two revisions.
      expect(valueOf(event, 'sequence')).toBe('2');
      expect(valueOf(event, 'dtstamp')).toBe(changed);
      expect(valueOf(event, 'last-modified')).toBe(changed);
      expect(address(valueOf(event, 'organizer'))).toBe(`mailto:${owner.email}`);
      expect(parameterOf(event, 'organizer', 'cn')).toBe('Ada Lovelace');
      expect(attendeesOf(event)).toEqual([
        `mailto:${owner.email} ACCEPTED (Ada Lovelace)`,
        `mailto:${accepting.email} ACCEPTED (Charles Babbage)`,
        `mailto:${declining.email} DECLINED (Mary Somerville)`,
        `mailto:${undecided.email} NEEDS-ACTION (Augustus De Morgan)`,
      ]);
    }
    // ical.js expands the series as the service does: DST, EXDATE and the moved occurrence.
    const { meeting: shown } = await t.gql.data<{
      meeting: { occurrences: Array<{ startTime: string; endTime: string; cancelled: boolean }> };
    }>(OCCURRENCES, { id: seriesId }, owner.token);
    const held = shown.occurrences
      .filter((occurrence) => !occurrence.cancelled)
      .map((occurrence) => ({ start: occurrence.startTime, end: occurrence.endTime }));
    expect(held.map((occurrence) => occurrence.start)).toEqual([
      '2027-03-01T14:00:00.000Z',
      '2027-03-15T13:00:00.000Z',
      '2027-03-23T14:00:00.000Z',
      '2027-03-29T13:00:00.000Z',
      '2027-04-05T13:00:00.000Z',
    ]);
    expect(expandWithIcalJs(series, overrides)).toEqual(held);

    // node-ical: the same entry, the override under `recurrences`.
    const parsed = readWithNodeIcal(text)[seriesId];
    expect(parsed).toBeDefined();
    const event = parsed!;
    expect(event.start.toISOString()).toBe('2027-03-01T14:00:00.000Z');
    expect(event.start.tz).toBe('America/New_York');
    expect(event.end?.toISOString()).toBe('2027-03-01T14:45:00.000Z');
    expect(
      event.rrule
        ?.between(new Date('2027-02-01'), new Date('2027-05-01'), true)
        .map((date) => date.toISOString()),
    ).toEqual([
      '2027-03-01T14:00:00.000Z',
      '2027-03-08T14:00:00.000Z',
      '2027-03-15T13:00:00.000Z',
      '2027-03-22T13:00:00.000Z',
      '2027-03-29T13:00:00.000Z',
      '2027-04-05T13:00:00.000Z',
    ]);
    expect([
      ...new Set(Object.values(event.exdate ?? {}).map((date) => date.toISOString())),
    ]).toEqual(['2027-03-08T14:00:00.000Z']);
    const override = event.recurrences?.['2027-03-22T13:00:00.000Z'] as VEvent | undefined;
    expect(override?.start.toISOString()).toBe('2027-03-23T14:00:00.000Z');
    expect(override?.end?.toISOString()).toBe('2027-03-23T14:45:00.000Z');
    expect(override?.recurrenceid?.toISOString()).toBe('2027-03-22T13:00:00.000Z');
    expect(withParams(event.summary)?.val).toBe('Design review');
    expect(withParams(event.description)?.val).toBe('Agenda: feeds, zones; and the rest');
    expect(withParams(event.location)?.val).toBe('Room 101, HQ');
    expect(withParams(event.url)?.val).toBe('https://meet.example.com/room/101');
    expect(event.status).toBe('TENTATIVE');
    expect(Number(event.sequence)).toBe(2);
    expect(event.dtstamp.toISOString()).toBe(changed.replace('Z', '.000Z'));
    expect(event.lastmodified?.toISOString()).toBe(changed.replace('Z', '.000Z'));
    const organizer = withParams(event.organizer);
    expect([address(organizer?.val), organizer?.params['CN']]).toEqual([
      `mailto:${owner.email}`,
      'Ada Lovelace',
    ]);
    const attendees = [event.attendee ?? []].flat().map((a) => withParams(a));
    expect(attendees.map((a) => [address(a?.val), a?.params['PARTSTAT'], a?.params['CN']])).toEqual(
      [
        [`mailto:${owner.email}`, 'ACCEPTED', 'Ada Lovelace'],
        [`mailto:${accepting.email}`, 'ACCEPTED', 'Charles Babbage'],
        [`mailto:${declining.email}`, 'DECLINED', 'Mary Somerville'],
        [`mailto:${undecided.email}`, 'NEEDS-ACTION', 'Augustus De Morgan'],
      ],
    );
  }

  it('answers a personal feed at <PUBLIC_URL>/calendar/<secret>.ics, without a token', async () => {
    const feed = await calendar.createFeed(undecided);
    expect(feed).toEqual({
      url: expect.stringMatching(/^https:\/\/meet\.example\.com\/calendar\/cal_[0-9a-f]{64}\.ics$/),
      createdAt: expect.any(String),
    });
    const answer = await calendar.readFeed(feed.url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(answer.headers.get('etag')).toMatch(/^W\/"[\w-]{27}"$/);
    expect(new Date(answer.headers.get('last-modified') ?? '').getTime()).not.toBeNaN();
    expect(answer.text).toMatch(/^BEGIN:VCALENDAR\r\n/);
    await expectTheSeries(answer.text);
  });

  it('holds the meetings a user owns and those they were invited to, whatever their answer', async () => {
    const other = await t.seed.user();
    const own = await calendar.meeting(
      owner,
      { title: 'Without the others', startTime: '2027-06-01T09:00:00Z' },
      [other],
    );
    for (const [user, expected] of [
      [owner, [seriesId, own]],
      [accepting, [seriesId]],
      [declining, [seriesId]],
      [stranger, []],
    ] as const) {
      const feed = await calendar.createFeed(user);
      const uids = readWithIcalJs((await calendar.readFeed(feed.url)).text).events.map((event) =>
        valueOf(event, 'uid'),
      );
      expect([...new Set(uids)].sort()).toEqual([...expected].sort());
    }
  });

  it('answers one meeting at /calendar/meetings/<id>.ics to whoever may see it', async () => {
    const answer = await calendar.readMeeting(seriesId, accepting);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    await expectTheSeries(answer.text);
  });

  it('hides a meeting from a stranger and an unknown id alike (404), and wants a token', async () => {
    const hidden = await calendar.readMeeting(seriesId, stranger);
    expect([hidden.status, JSON.parse(hidden.text)]).toEqual([
      404,
      { errors: 'MEETING_NOT_FOUND' },
    ]);
    const unknown = await calendar.readMeeting('00000000-0000-4000-8000-000000000000', owner);
    expect([unknown.status, JSON.parse(unknown.text)]).toEqual([
      404,
      { errors: 'MEETING_NOT_FOUND' },
    ]);
    const anonymous = await calendar.readMeeting(seriesId, null);
    expect([anonymous.status, JSON.parse(anonymous.text)]).toEqual([
      401,
      { errors: 'NOT_AUTHENTICATED' },
    ]);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    const malformed = await calendar.readMeeting('not-a-uuid', owner);
    expect([malformed.status, JSON.parse(malformed.text)]).toEqual([
      422,
      { errors: { meeting_id: 'VALIDATION_MEETING_ID_INVALID_UUID' } },
    ]);
  });

  it('answers 304 to a matching If-None-Match, and the document again once it changed', async () => {
    const feed = await calendar.createFeed(declining);
    const first = await calendar.readFeed(feed.url);
    const etag = first.headers.get('etag') ?? '';
    const again = await calendar.readFeed(feed.url, { 'if-none-match': etag });
    expect([again.status, again.text]).toEqual([304, '']);
    expect(again.headers.get('etag')).toBe(etag);
    const other = await calendar.readFeed(feed.url, { 'if-none-match': 'W/"something-else"' });
    expect(other.status).toBe(200);
    const single = await calendar.readMeeting(seriesId, owner);
    const tag = { 'if-none-match': single.headers.get('etag') ?? '' };
    const notModified = await calendar.readMeeting(seriesId, owner, tag);
    expect(notModified.status).toBe(304);
    // An answer changes the document (PARTSTAT): the old tag no longer matches.
    await calendar.act('approveMeeting', seriesId, undecided);
    const changed = await calendar.readMeeting(seriesId, owner, tag);
    expect(changed.status).toBe(200);
    expect(changed.text).toContain(`PARTSTAT=ACCEPTED;CN="Augustus De Morgan"`);
    // Put back for the other tests.
    await calendar.act('declineMeeting', seriesId, undecided);
  });
});
