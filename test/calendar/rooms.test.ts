import { ICalAttendeeStatus } from 'ical-generator';
import { itipDocument } from '../../src/modules/calendar/itip';
import type { CalendarEntry } from '../../src/modules/calendar/ics';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { later, Rooms } from '../rooms/rooms-fixtures';
import { CalendarClient } from './calendar-client';
import { attendeesOf, readWithIcalJs, valueOf } from './documents';

const RENAME = `mutation ($input: UpdateResourceInput!) { updateResource(input: $input) { resource { id } } }`;

/** The ATTENDEE properties of a VEVENT that are rooms, as `CUTYPE CN ROLE PARTSTAT address`. */
const roomsOf = (text: string): string[] =>
  text
    .replace(/\r\n /g, '')
    .split('\r\n')
    .filter((line) => line.startsWith('ATTENDEE') && line.includes('CUTYPE=ROOM'));

describe('rooms in calendar documents', () => {
  let t: TestApp;
  let rooms: Rooms;
  let calendar: CalendarClient;
  let ada: SeededUser;
  let ben: SeededUser;

  beforeAll(async () => {
    t = await startTestApp();
    rooms = await Rooms.of(t);
    calendar = new CalendarClient(t);
    [ada, ben] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });
  afterAll(() => t.close());

  it('lists the booked room as ATTENDEE;CUTYPE=ROOM with its name, and in LOCATION before the place', async () => {
    const room = await rooms.room({ name: 'Blue room', capacity: 6 });
    const meetingId = await rooms.meetingId(ada, ben, { startTime: later(2, 9) }, [room.id]);
    const answer = await calendar.readMeeting(meetingId, ada);
    expect(answer.status).toBe(200);
    const [event] = readWithIcalJs(answer.text).events;
    expect(valueOf(event as never, 'location')).toBe('Blue room, Main office');
    expect(attendeesOf(event as never)).toEqual([
      `mailto:${ada.email} ACCEPTED (${ada.name})`,
      `mailto:${ben.email} NEEDS-ACTION (${ben.name})`,
      `mailto:resource-${room.id}@resources.invalid ACCEPTED (Blue room)`,
    ]);
    expect(roomsOf(answer.text)).toEqual([
      expect.stringMatching(
        /^ATTENDEE;ROLE=NON-PARTICIPANT;CUTYPE=ROOM;PARTSTAT=ACCEPTED;CN="?Blue room"?:MAILTO:/,
      ),
    ]);
  });

  it("changes the feed's document and its ETag when a booked room is renamed", async () => {
    const room = await rooms.room({ name: 'Old room name', capacity: 6 });
    await rooms.meetingId(ada, ben, { startTime: later(3, 9) }, [room.id]);
    const feed = await calendar.createFeed(ada);
    const before = await calendar.readFeed(feed.url);
    expect(roomsOf(before.text).join()).toContain('Old room name');
    await t.gql.data(
      RENAME,
      { input: { resourceId: room.id, name: 'New room name' } },
      rooms.admin.token,
    );
    const after = await calendar.readFeed(feed.url);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(roomsOf(after.text).join()).toContain('New room name');
  });

  it('writes the rooms into an iTIP REQUEST, and leaves them out of a REPLY', async () => {
    const room = await rooms.room({ name: 'Mail room', capacity: 6 });
    const meetingId = await rooms.meetingId(ada, ben, { startTime: later(4, 9) }, [room.id]);
    const document = (await calendar.readMeeting(meetingId, ada)).text;
    expect(roomsOf(document)).toHaveLength(1);
    const [event] = readWithIcalJs(document).events;
    const entry = {
      meeting: {
        id: meetingId,
        title: 'Room booking test',
        startTime: later(4, 9),
        durationMinutes: 60,
        timeZone: 'UTC',
        recurrence: null,
        location: valueOf(event as never, 'location'),
        locationUrl: null,
        description: null,
        status: 'pending',
        sequence: 0,
        createdAt: later(0),
        updatedAt: later(0),
      },
      owner: { id: ada.id, name: ada.name, email: ada.email },
      attendees: [],
      edits: [],
      resources: [{ id: room.id, name: 'Mail room' }],
    } as unknown as CalendarEntry;
    const now = new Date();
    expect(roomsOf(itipDocument(entry, { method: 'REQUEST', now }))).toHaveLength(1);
    const reply = itipDocument(entry, {
      method: 'REPLY',
      now,
      only: {
        user: { id: ben.id, name: ben.name, email: ben.email } as never,
        status: ICalAttendeeStatus.ACCEPTED,
      },
    });
    expect(roomsOf(reply)).toEqual([]);
  });
});
