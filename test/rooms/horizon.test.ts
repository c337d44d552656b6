import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { later, Rooms } from './rooms-fixtures';

const WEEK_MS = 7 * 86_400_000;

/**
 * A series books its rooms RESOURCE_BOOKING_HORIZON_DAYS ahead; the periodic job books on as the
 * horizon moves. Time passing is played by a second instance on the same database with a wider
 * horizon, whose job runs when it starts.
 */
describe("a series' bookings up to the horizon", () => {
  let t: TestApp;
  let wider: TestApp | null = null;
  let rooms: Rooms;
  let ada: SeededUser;
  let ben: SeededUser;
  let cy: SeededUser;

  beforeAll(async () => {
    ({
      rooms,
      people: [ada, ben, cy],
    } = await Rooms.start({ RESOURCE_BOOKING_HORIZON_DAYS: '14' }));
    t = rooms.t;
  });
  afterAll(async () => {
    await wider?.close();
    await t.close();
  });

  it('books occurrences within the horizon, and the later ones once the horizon reaches them', async () => {
    const room = await rooms.room({ name: 'Horizon room', capacity: 4 });
    const first = later(1, 9);
    const week = (n: number) => new Date(Date.parse(first) + n * WEEK_MS).toISOString();
    await rooms.meetingId(
      ada,
      ben,
      { startTime: first, durationMinutes: 60, recurrence: 'FREQ=WEEKLY;COUNT=10' },
      [room.id],
    );
    // Within 14 days: booked. Week 5 lies beyond: another meeting books it first, and keeps it.
    expect(
      (await rooms.meeting(cy, ben, { startTime: week(1) }, [room.id])).errors?.[0]?.extensions,
    ).toMatchObject({ reason: 'RESOURCE_BUSY' });
    expect(
      (await rooms.meeting(cy, ben, { startTime: week(5) }, [room.id])).errors,
    ).toBeUndefined();

    wider = await startTestApp(
      { RESOURCE_BOOKING_HORIZON_DAYS: '100' },
      { database: { kind: 'postgres', url: t.instance.database.url, poolSize: 3 } },
    );
    const deadline = Date.now() + 15_000;
    let answer = await rooms.meeting(cy, ben, { startTime: week(7) }, [room.id]);
    while (!answer.errors && Date.now() < deadline) {
      // Not yet extended: the booking just made is undone, and tried again.
      await rooms.cancel(cy, answer.data?.createMeeting.meeting.id as string);
      await new Promise((resolve) => setTimeout(resolve, 200));
      answer = await rooms.meeting(cy, ben, { startTime: week(7) }, [room.id]);
    }
    expect(answer.errors?.[0]?.extensions).toMatchObject({ reason: 'RESOURCE_BUSY', at: week(7) });
    expect(
      (await rooms.meeting(cy, ben, { startTime: week(9) }, [room.id])).errors?.[0]?.extensions,
    ).toMatchObject({ reason: 'RESOURCE_BUSY' });
    // Week 5 stays with the meeting that booked it first; after the last occurrence all is free.
    expect(
      (await rooms.meeting(cy, ben, { startTime: week(10) }, [room.id])).errors,
    ).toBeUndefined();
  });
});
