import { MeetingStore } from '../../src/modules/meeting/meeting.store';
import type { SeededMeeting, SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

// MeetingStore.withParticipants reads meetings with their participants and users in one
// statement (a meeting's row, then its participants' rows): on the database itself, one id and
// several, a meeting without participants, an id that is not there.

describe('MeetingStore.withParticipants', () => {
  const t = useTestApp();
  let owner: SeededUser;
  let guests: SeededUser[];
  let big: SeededMeeting;
  let small: SeededMeeting;
  let empty: SeededMeeting;

  const store = () => new MeetingStore(t.instance.database.orm.em.fork());

  beforeAll(async () => {
    owner = await t.seed.user();
    guests = await t.seed.users(4);
    big = await t.seed
      .meeting(owner)
      .titled('Big review')
      .inviting(...guests)
      .create();
    small = await t.seed
      .meeting(guests[0] as SeededUser)
      .titled('Small review')
      .inviting(owner)
      .create();
    empty = await t.seed
      .meeting(owner)
      .titled('Empty review')
      .inviting(guests[1] as SeededUser)
      .create();
    await t.instance.database.orm.em
      .fork()
      .getConnection()
      .execute('delete from "participants" where "meeting_id" = ?', [empty.id]);
  });

  /** The participants as stored, in the order they were added (then by id). */
  async function stored(meetingId: string): Promise<Array<{ id: string; userId: string }>> {
    const rows = await t.instance.database.orm.em
      .fork()
      .getConnection()
      .execute<
        Array<{ id: string; user_id: string }>
      >('select "id", "user_id" from "participants" where "meeting_id" = ? order by "created_at", "id"', [meetingId]);
    return rows.map((row) => ({ id: row.id, userId: row.user_id }));
  }

  it('answers one meeting with its participants in the order added and their users', async () => {
    const found = await store().withParticipants([big.id]);
    expect(found.meetings.map((meeting) => [meeting.id, meeting.title, meeting.ownerId])).toEqual([
      [big.id, 'Big review', owner.id],
    ]);
    const participants = found.byMeeting.get(big.id) ?? [];
    expect(participants.map(({ id, userId }) => ({ id, userId }))).toEqual(await stored(big.id));
    expect(participants).toHaveLength(5);
    expect(participants.every((participant) => participant.meetingId === big.id)).toBe(true);
    expect(new Set(found.users.map((user) => user.id))).toEqual(
      new Set([owner.id, ...guests.map((guest) => guest.id)]),
    );
    // Records hold timestamps as ISO text, as every read does.
    expect(found.meetings[0]?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(participants[0]?.createdAt).toMatch(/Z$/);
  });

  it('answers several meetings, each with only its own participants', async () => {
    const found = await store().withParticipants([small.id, empty.id, big.id]);
    expect(found.meetings.map((meeting) => meeting.id).sort()).toEqual(
      [small.id, empty.id, big.id].sort(),
    );
    expect(found.byMeeting.get(empty.id)).toEqual([]);
    for (const meeting of [small, big]) {
      const participants = found.byMeeting.get(meeting.id) ?? [];
      expect(participants.map(({ id, userId }) => ({ id, userId }))).toEqual(
        await stored(meeting.id),
      );
    }
    expect(found.byMeeting.get(small.id)?.map((p) => p.userId)).toEqual([guests[0]?.id, owner.id]);
  });

  it('answers a meeting without participants, and nothing for an id that is not there', async () => {
    const alone = await store().withParticipants([empty.id]);
    expect(alone.meetings.map((meeting) => meeting.title)).toEqual(['Empty review']);
    expect(alone.byMeeting.get(empty.id)).toEqual([]);
    expect(alone.users).toEqual([]);

    const missing = await store().withParticipants(['00000000-0000-4000-8000-000000000000']);
    expect(missing).toEqual({ meetings: [], byMeeting: new Map(), users: [] });
  });
});
