import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { later, Rooms } from './rooms-fixtures';

describe('booking rooms with meetings', () => {
  let t: TestApp;
  let rooms: Rooms;
  let ada: SeededUser;
  let ben: SeededUser;
  let cy: SeededUser;

  beforeAll(async () => {
    t = await startTestApp();
    rooms = await Rooms.of(t);
    [ada, ben, cy] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
  });
  afterAll(() => t.close());

  it('books a room for a meeting and refuses an overlapping one with RESOURCE_BUSY', async () => {
    const room = await rooms.room({ name: 'Blue room', capacity: 6 });
    const first = await rooms.meeting(ada, ben, { startTime: later(3, 10), durationMinutes: 60 }, [
      room.id,
    ]);
    expect(first.errors).toBeUndefined();
    expect(first.data?.createMeeting.meeting.resources).toEqual([
      { id: room.id, name: 'Blue room' },
    ]);

    const second = await rooms.meeting(
      cy,
      ben,
      { startTime: later(3, 10, 30), durationMinutes: 60 },
      [room.id],
    );
    expect(second.errors?.[0]?.extensions).toEqual({
      code: 'CONFLICT',
      reason: 'RESOURCE_BUSY',
      resourceId: room.id,
      resourceName: 'Blue room',
      at: later(3, 10, 30),
    });
    // Back to back is no overlap.
    const after = await rooms.meeting(cy, ben, { startTime: later(3, 11), durationMinutes: 30 }, [
      room.id,
    ]);
    expect(after.errors).toBeUndefined();
  });
});
