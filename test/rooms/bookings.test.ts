import type { SeededUser } from '../helpers/seed';
import type { TestApp } from '../helpers/test-app';
import { later, occurrenceChange, Rooms } from './rooms-fixtures';

const busy = (resourceId: string, at: string) => ({
  code: 'CONFLICT',
  reason: 'RESOURCE_BUSY',
  resourceId,
  resourceName: expect.any(String),
  at,
});

describe('booking rooms with meetings', () => {
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
      ...busy(room.id, later(3, 10, 30)),
      resourceName: 'Blue room',
    });
    expect(second.errors?.[0]?.message).toBe(`Blue room is booked at ${later(3, 10, 30)}`);
    // Back to back is no overlap.
    const after = await rooms.meeting(cy, ben, { startTime: later(3, 11), durationMinutes: 30 }, [
      room.id,
    ]);
    expect(after.errors).toBeUndefined();
  });

  it('lets exactly one of 20 concurrent creates, reschedules and additions book one room at overlapping times', async () => {
    const room = await rooms.room({ name: 'Contested room', capacity: 8 });
    const target = (minute: number) => later(5, 14, minute);
    // Seven meetings hold the room at times of their own, to be moved onto the contested time.
    const holders = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        rooms.meetingId(ada, ben, { startTime: later(6 + i, 9), durationMinutes: 30 }, [room.id]),
      ),
    );
    // Seven meetings at the contested time without it, to add it to.
    const bare = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        rooms.meetingId(cy, ben, { startTime: target(i * 5), durationMinutes: 45 }),
      ),
    );
    const attempts = [
      ...holders.map((meetingId, i) =>
        rooms.reschedule(ada, { meetingId, startTime: target(i * 3), durationMinutes: 45 }),
      ),
      ...bare.map((meetingId) => rooms.add(cy, meetingId, room.id)),
      ...Array.from({ length: 6 }, (_, i) =>
        rooms.meeting(ada, cy, { startTime: target(i * 4), durationMinutes: 45 }, [room.id]),
      ),
    ];
    expect(attempts).toHaveLength(20);
    const answers = await Promise.all(attempts);
    const won = answers.filter((answer) => !answer.errors);
    const lost = answers.filter((answer) => answer.errors);
    expect(won).toHaveLength(1);
    expect(lost.map((answer) => answer.errors?.[0]?.extensions)).toEqual(
      lost.map(() => busy(room.id, expect.any(String))),
    );
  });

  it('blocks every occurrence of a weekly series, and books one an occurrence cancelled', async () => {
    const room = await rooms.room({ name: 'Series room', capacity: 4 });
    const first = later(7, 9);
    const week = (n: number, minutes = 0) =>
      new Date(Date.parse(first) + n * 7 * 86_400_000 + minutes * 60_000).toISOString();
    const series = await rooms.meetingId(
      ada,
      ben,
      { startTime: first, durationMinutes: 60, recurrence: 'FREQ=WEEKLY;COUNT=10' },
      [room.id],
    );
    for (const n of [0, 4, 9]) {
      const refused = await rooms.meeting(cy, ben, { startTime: week(n, 30) }, [room.id]);
      expect(refused.errors?.[0]?.extensions).toEqual(busy(room.id, week(n, 30)));
    }
    // After the series' last occurrence the room is free.
    expect(
      (await rooms.meeting(cy, ben, { startTime: week(10) }, [room.id])).errors,
    ).toBeUndefined();

    const cancelled = await occurrenceChange(t, ada, {
      meetingId: series,
      originalStartTime: week(3),
    });
    expect(cancelled.errors).toBeUndefined();
    const instead = await rooms.meeting(cy, ben, { startTime: week(3), durationMinutes: 60 }, [
      room.id,
    ]);
    expect(instead.errors).toBeUndefined();

    // Moving another occurrence onto the one-off booking is refused, and changes nothing.
    const moved = await occurrenceChange(t, ada, {
      meetingId: series,
      originalStartTime: week(2),
      startTime: week(3, 15),
    });
    expect(moved.errors?.[0]?.extensions).toEqual(busy(room.id, week(3, 15)));
    const stillBooked = await rooms.meeting(cy, ben, { startTime: week(2, 30) }, [room.id]);
    expect(stillBooked.errors?.[0]?.extensions).toEqual(busy(room.id, week(2, 30)));
  });

  it('frees the room when the meeting is cancelled, rescheduled or gives it up', async () => {
    const room = await rooms.room({ name: 'Freed room', capacity: 4 });
    const at = later(20, 9);
    const meeting = await rooms.meetingId(ada, ben, { startTime: at }, [room.id]);
    expect((await rooms.cancel(ada, meeting)).errors).toBeUndefined();
    const next = await rooms.meetingId(cy, ben, { startTime: at }, [room.id]);

    expect(
      (await rooms.reschedule(cy, { meetingId: next, startTime: later(21, 9) })).errors,
    ).toBeUndefined();
    const third = await rooms.meetingId(ada, ben, { startTime: at }, [room.id]);
    expect(
      (await rooms.meeting(cy, ben, { startTime: later(21, 9) }, [room.id])).errors?.[0]
        ?.extensions,
    ).toEqual(busy(room.id, later(21, 9)));

    expect((await rooms.remove(ada, third, room.id)).errors).toBeUndefined();
    expect((await rooms.meeting(cy, ben, { startTime: at }, [room.id])).errors).toBeUndefined();
  });

  it('lets only the owner add or remove a room, and names an unknown one', async () => {
    const room = await rooms.room({ name: 'Owner room', capacity: 4 });
    const meeting = await rooms.meetingId(ada, ben, { startTime: later(30, 9) });
    for (const answer of [
      await rooms.add(ben, meeting, room.id),
      await rooms.remove(ben, meeting, room.id),
    ]) {
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'FORBIDDEN',
        reason: 'ONLY_MEETING_OWNER_CAN_BOOK',
      });
    }
    expect((await rooms.add(cy, meeting, room.id)).errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_FOUND',
      reason: 'MEETING_NOT_FOUND',
    });
    const added = await rooms.add(ada, meeting, room.id);
    expect(added.data?.addResource.meeting.resources).toEqual([{ id: room.id }]);
    // Again: nothing changes.
    expect((await rooms.add(ada, meeting, room.id)).data?.addResource.meeting.resources).toEqual([
      { id: room.id },
    ]);
    const unknown = await rooms.add(ada, meeting, '00000000-0000-4000-8000-000000000000');
    expect(unknown.errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_FOUND',
      reason: 'RESOURCE_NOT_FOUND',
    });
    const created = await rooms.meeting(ada, ben, { startTime: later(31, 9) }, [
      '00000000-0000-4000-8000-000000000000',
    ]);
    expect(created.errors?.[0]?.extensions).toMatchObject({ reason: 'RESOURCE_NOT_FOUND' });
  });

  it('frees the room once every guest has declined (the meeting is cancelled)', async () => {
    const room = await rooms.room({ name: 'Declined room', capacity: 4 });
    const at = later(40, 9);
    const meeting = await rooms.meetingId(ada, ben, { startTime: at }, [room.id]);
    await t.gql.data(
      'mutation ($id: UUID!) { declineMeeting(input: { meetingId: $id }) { meeting { status } } }',
      { id: meeting },
      ben.token,
    );
    expect((await rooms.meeting(cy, ben, { startTime: at }, [room.id])).errors).toBeUndefined();
  });

  it('reads the rooms of a page of meetings in one statement, however many meetings', async () => {
    const owner = await t.seed.user();
    const room = await rooms.room({ name: 'Batched room', capacity: 4 });
    const page = `query { meetings(first: 20) { nodes { id resources { id name } } } }`;
    const statements = async (): Promise<number> =>
      t.countQueries(async () => {
        const data = await t.gql.data<{ meetings: { nodes: Array<{ resources: unknown[] }> } }>(
          page,
          {},
          owner.token,
        );
        expect(data.meetings.nodes.every((meeting) => meeting.resources.length === 1)).toBe(true);
      });
    await rooms.meetingId(owner, ben, { startTime: later(50, 9) }, [room.id]);
    const one = await statements();
    for (const day of [51, 52, 53, 54]) {
      await rooms.meetingId(owner, ben, { startTime: later(day, 9) }, [room.id]);
    }
    expect(await statements()).toBe(one);
  });

  it("books a series' occurrences at their wall-clock time across a daylight-saving change", async () => {
    const room = await rooms.room({ name: 'Berlin room', capacity: 4 });
    // Mondays at 09:00 in Berlin: 08:00 UTC before 28 March 2027, 07:00 UTC after.
    await rooms.meetingId(
      ada,
      ben,
      {
        startTime: '2027-03-22T08:00:00.000Z',
        timeZone: 'Europe/Berlin',
        recurrence: 'FREQ=WEEKLY;COUNT=3',
      },
      [room.id],
    );
    const at = (startTime: string) =>
      rooms.meeting(cy, ben, { startTime, durationMinutes: 30 }, [room.id]);
    expect((await at('2027-03-29T07:30:00.000Z')).errors?.[0]?.extensions).toEqual(
      busy(room.id, '2027-03-29T07:30:00.000Z'),
    );
    expect((await at('2027-03-29T08:00:00.000Z')).errors).toBeUndefined();
  });
});
