import type { SeededUser } from '../helpers/seed';
import type { TestApp } from '../helpers/test-app';
import { later, type Room, Rooms } from './rooms-fixtures';

const FREE_BUSY = `query ($userIds: [UUID!]!, $resourceIds: [UUID!], $from: DateTime!, $to: DateTime!) {
  freeBusy(userIds: $userIds, resourceIds: $resourceIds, from: $from, to: $to) {
    userId resourceId busy { start end kind } workingHours { start end }
  }
}`;
const SUGGEST = `query ($input: SuggestMeetingTimesInput!) {
  suggestMeetingTimes(input: $input) { startTime endTime availableUserIds room { id name capacity } }
}`;
const EVERY_DAY = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

interface Entry {
  userId: string | null;
  resourceId: string | null;
  busy: Array<{ start: string; end: string; kind: string }> | null;
  workingHours: Array<{ start: string; end: string }> | null;
}
interface Suggested {
  startTime: string;
  endTime: string;
  room: { id: string; name: string; capacity: number } | null;
}

describe("rooms' free/busy and suggested times with a room", () => {
  let t: TestApp;
  let rooms: Rooms;
  let ada: SeededUser;
  let ben: SeededUser;
  let cy: SeededUser;

  beforeAll(async () => {
    ({
      rooms,
      people: [ada, ben, cy],
    } = await Rooms.start());
    t = rooms.t;
  });
  afterAll(() => t.close());

  const freeBusy = async (variables: Record<string, unknown>) =>
    (await t.gql.data<{ freeBusy: Entry[] }>(FREE_BUSY, variables, ada.token)).freeBusy;
  const suggest = async (input: Record<string, unknown>) =>
    (await t.gql.data<{ suggestMeetingTimes: Suggested[] }>(SUGGEST, { input }, ada.token))
      .suggestMeetingTimes;

  it("answers a resource's bookings and working hours after the users', in four statements however many", async () => {
    const open = await rooms.room({ name: 'Open room', capacity: 6 });
    const office = await rooms.room({
      name: 'Office hours room',
      capacity: 6,
      timeZone: 'Europe/Berlin',
      workingHours: EVERY_DAY.map((weekday) => ({ weekday, start: '09:00', end: '10:00' })),
    });
    await rooms.meetingId(ben, cy, { startTime: later(2, 10), durationMinutes: 90 }, [open.id]);
    const window = { from: later(2), to: later(3) };
    const entries = await freeBusy({
      userIds: [ben.id],
      resourceIds: [open.id, office.id],
      ...window,
    });
    expect(entries).toEqual([
      expect.objectContaining({ userId: ben.id, resourceId: null }),
      {
        userId: null,
        resourceId: open.id,
        busy: [{ start: later(2, 10), end: later(2, 11, 30), kind: 'BUSY' }],
        workingHours: null,
      },
      {
        userId: null,
        resourceId: office.id,
        busy: [],
        workingHours: [{ start: expect.any(String), end: expect.any(String) }],
      },
    ]);
    const officeHours = entries[2]?.workingHours?.[0] as { start: string; end: string };
    expect(Date.parse(officeHours.end) - Date.parse(officeHours.start)).toBe(3_600_000);

    const many = await Promise.all(
      Array.from({ length: 8 }, (_, i) => rooms.room({ name: `Counted room ${i}`, capacity: 2 })),
    );
    const few = await t.countQueries(() =>
      freeBusy({ userIds: [ben.id], resourceIds: [open.id], ...window }),
    );
    const lots = await t.countQueries(() =>
      freeBusy({ userIds: [ben.id, cy.id, ada.id], resourceIds: many.map((r) => r.id), ...window }),
    );
    console.log(`freeBusy: ${few} SQL statements for 1 user and 1 room, ${lots} for 3 and 8`);
    expect(few).toBeLessThanOrEqual(4);
    expect(lots).toBe(few);

    const unknown = await t.gql.error(
      FREE_BUSY,
      { userIds: [], resourceIds: ['00000000-0000-4000-8000-000000000000'], ...window },
      ada.token,
    );
    expect(unknown.extensions).toMatchObject({ code: 'NOT_FOUND', reason: 'RESOURCE_NOT_FOUND' });
    const nothing = await t.gql.error(FREE_BUSY, { userIds: [], ...window }, ada.token);
    expect(nothing.extensions).toMatchObject({ fields: { userIds: 'TOO_SHORT' } });
  });

  it('suggests each time with a free room that holds at least minCapacity, never a busy or too small one', async () => {
    const building = `Tower ${Date.now()}`;
    const small = await rooms.room({ name: 'Small room', capacity: 4, building });
    const taken = await rooms.room({ name: 'Eight taken', capacity: 8, building });
    const spare = await rooms.room({ name: 'Ten spare', capacity: 10, building });
    // The eight-seat room is booked all morning; the ten-seat one from 11:00 to 12:00.
    await rooms.meetingId(cy, ben, { startTime: later(4, 9), durationMinutes: 180 }, [taken.id]);
    await rooms.meetingId(cy, ben, { startTime: later(4, 11), durationMinutes: 60 }, [spare.id]);
    const input = {
      userIds: [ben.id],
      durationMinutes: 60,
      from: later(4, 9),
      to: later(4, 14),
      workingHours: { start: '09:00', end: '14:00' },
      weekdays: EVERY_DAY,
      stepMinutes: 30,
      first: 20,
      room: { minCapacity: 8, building },
    };
    const found = await suggest(input);
    const bookings = {
      [taken.id]: [later(4, 9), later(4, 12)],
      [spare.id]: [later(4, 11), later(4, 12)],
    };
    expect(found.length).toBeGreaterThan(0);
    for (const slot of found) {
      expect(slot.room).not.toBeNull();
      const room = slot.room as Room;
      expect(room.id).not.toBe(small.id);
      expect(room.capacity).toBeGreaterThanOrEqual(8);
      const [start, end] = bookings[room.id] as [string, string];
      const overlaps = slot.startTime < end && start < slot.endTime;
      expect(overlaps).toBe(false);
    }
    // 11:00 to 12:00 and 10:30 to 11:30 have no free room that fits: not offered.
    expect(found.map((slot) => slot.startTime)).not.toContain(later(4, 11));
    expect(found.map((slot) => slot.startTime)).not.toContain(later(4, 10, 30));
    // The smallest that fits and is free: the eight-seat room once it is free again.
    expect(found.find((slot) => slot.startTime === later(4, 12))?.room?.id).toBe(taken.id);
    expect(found.find((slot) => slot.startTime === later(4, 9))?.room?.id).toBe(spare.id);

    // Without room: no room with any suggestion.
    expect((await suggest({ ...input, room: null })).every((slot) => slot.room === null)).toBe(
      true,
    );
  });

  it('suggests with a room in five statements, however many rooms there are', async () => {
    const building = `Annex ${Date.now()}`;
    const input = {
      userIds: [ben.id, cy.id],
      durationMinutes: 30,
      from: later(8, 9),
      to: later(8, 17),
      workingHours: { start: '09:00', end: '17:00' },
      weekdays: EVERY_DAY,
      room: { minCapacity: 3, building },
    };
    await rooms.room({ name: 'Annex one', capacity: 3, building });
    const one = await t.countQueries(() => suggest(input));
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        rooms.room({ name: `Annex more ${i}`, capacity: 3 + i, building }),
      ),
    );
    const many = await t.countQueries(() => suggest(input));
    console.log(
      `suggestMeetingTimes with a room: ${one} SQL statements for 1 room, ${many} for 26`,
    );
    expect(one).toBeLessThanOrEqual(5);
    expect(many).toBe(one);
  });
});
