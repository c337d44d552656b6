import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { CalendarClient } from './calendar-client';
import { readWithIcalJs, valueOf } from './documents';

/*
 * A meeting's SEQUENCE in iCalendar (issue 28): it counts the revisions of what a calendar shows
 * of the meeting, so that calendar apps holding an older copy replace it.
 */

describe("a meeting's SEQUENCE", () => {
  let t: TestApp;
  let calendar: CalendarClient;
  let owner: SeededUser;
  let accepting: SeededUser;
  let meetingId: string;
  const sequence = async (): Promise<string> => {
    const answer = await calendar.readMeeting(meetingId, owner);
    const [event] = readWithIcalJs(answer.text).events;
    return valueOf(event!, 'sequence');
  };

  beforeAll(async () => {
    t = await startTestApp();
    calendar = new CalendarClient(t);
    [owner, accepting] = (await t.seed.users(2)) as [SeededUser, SeededUser];
    meetingId = await calendar.meeting(
      owner,
      { title: 'Sequence check', startTime: '2027-07-01T09:00:00Z' },
      [accepting],
    );
  });
  afterAll(() => t.close());

  it('starts at 0, with a UTC meeting in UTC form and no VTIMEZONE', async () => {
    const answer = await calendar.readMeeting(meetingId, owner);
    const { zones, events } = readWithIcalJs(answer.text);
    expect(zones).toEqual([]);
    expect(answer.text).toContain('\r\nDTSTART:20270701T090000Z\r\n');
    expect(answer.text).toContain('\r\nDTEND:20270701T100000Z\r\n');
    expect(events.map((event) => valueOf(event, 'sequence'))).toEqual(['0']);
  });

  it('grows with an edit of what calendars show, not with one of what they do not', async () => {
    const edit = (fields: Record<string, unknown>) =>
      t.gql.data(
        'mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }',
        { input: { meetingId, ...fields } },
        owner.token,
      );
    await edit({ title: 'Sequence check, renamed' });
    expect(await sequence()).toBe('1');
    await edit({ assignedTo: accepting.id });
    expect(await sequence()).toBe('1');
    await edit({ location: 'Room 202, HQ' });
    expect(await sequence()).toBe('2');
  });

  it('grows with a reschedule', async () => {
    await t.gql.data(
      'mutation ($input: RescheduleMeetingInput!) { rescheduleMeeting(input: $input) { meeting { id } } }',
      { input: { meetingId, startTime: '2027-07-02T09:00:00Z' } },
      owner.token,
    );
    expect(await sequence()).toBe('3');
    const answer = await calendar.readMeeting(meetingId, owner);
    expect(answer.text).toContain('\r\nDTSTART:20270702T090000Z\r\n');
  });

  it('grows when the meeting is confirmed, then cancelled, which its STATUS says', async () => {
    await calendar.act('approveMeeting', meetingId, accepting);
    expect(await sequence()).toBe('4');
    const confirmed = await calendar.readMeeting(meetingId, owner);
    expect(confirmed.text).toContain('\r\nSTATUS:CONFIRMED\r\n');
    await calendar.act('cancelMeeting', meetingId, owner);
    expect(await sequence()).toBe('5');
    const answer = await calendar.readMeeting(meetingId, owner);
    expect(answer.text).toContain('\r\nSTATUS:CANCELLED\r\n');
  });
});
