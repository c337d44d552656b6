import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';
import { createMeetingViaRest, type WireMeeting, type WireParticipant } from './rest-fixtures';

/**
 * What the meeting write path sends to the database: the statements of an add and an answer
 * (the caller's lookup included; BEGIN and COMMIT are not counted), and nothing written when an
 * answer changes nothing.
 */
describe('the SQL of adding participants and answering over REST', () => {
  const t = useTestApp();
  const { rest } = t;
  let owner: SeededUser;
  let bob: SeededUser;
  let carol: SeededUser;

  beforeAll(async () => {
    [owner, bob, carol] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
  });

  const add = (meetingId: string, userId: string) =>
    rest.post<WireParticipant>(
      `/meeting/${meetingId}/participants/add`,
      { json: { user_id: userId } },
      { token: owner.token },
    );
  const approve = (user: SeededUser, meetingId: string) =>
    rest.post(`/meeting/${meetingId}/approve`, undefined, { token: user.token });
  const getMeeting = (meetingId: string) =>
    rest.get<WireMeeting>(`/meeting/${meetingId}`, { token: owner.token });

  /** The statements `fn` sent, after checking its answer's status. */
  async function statementsOf(
    fn: () => Promise<{ status: number }>,
    status: number,
  ): Promise<number> {
    return t.countQueries(async () => expect((await fn()).status).toBe(status));
  }

  it("creates a meeting with the caller, the guests' check, the meeting's insert, the participants' carrying the change log, and the answer's participants", async () => {
    const meetings: WireMeeting[] = [];
    const statements = await t.countQueries(async () => {
      meetings.push(await createMeetingViaRest(rest, owner.token, [bob.id, carol.id]));
    });
    expect(statements).toBe(5);
    const [created] = meetings as [WireMeeting];
    // The owner first, then the guests in the order given.
    expect(created.participants.map((participant) => participant.user_id)).toEqual([
      owner.id,
      bob.id,
      carol.id,
    ]);
    expect((await getMeeting(created.id)).body).toEqual(created);
  });

  it('adds a participant with the caller, the lock, the participants with the user, and the insert carrying the change log', async () => {
    const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
    expect(await statementsOf(() => add(meeting.id, carol.id), 200)).toBe(4);
  });

  it('writes the meeting status too when an add takes a confirmed meeting back to pending', async () => {
    const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
    expect((await approve(bob, meeting.id)).status).toBe(200);
    expect((await getMeeting(meeting.id)).body.status).toBe('confirmed');
    expect(await statementsOf(() => add(meeting.id, carol.id), 200)).toBe(5);
    expect((await getMeeting(meeting.id)).body.status).toBe('pending');
  });

  it('approves with the caller, the lock, the participants with the answer, and the status carrying the change log', async () => {
    const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
    expect(await statementsOf(() => approve(bob, meeting.id), 200)).toBe(4);
  });

  it('writes and tells nothing when a guest approves again', async () => {
    const meeting = await createMeetingViaRest(rest, owner.token, [bob.id, carol.id]);
    expect((await approve(bob, meeting.id)).status).toBe(200);
    const before = await getMeeting(meeting.id);
    // The caller, the lock and the participants: no update, no NOTIFY.
    expect(await statementsOf(() => approve(bob, meeting.id), 200)).toBe(3);
    expect((await getMeeting(meeting.id)).body).toEqual(before.body);
  });

  it('answers the added participant as a later read shows it', async () => {
    const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
    const added = await add(meeting.id, carol.id);
    const shown = (await getMeeting(meeting.id)).body.participants.find(
      (participant) => participant.user_id === carol.id,
    );
    expect(added.body).toEqual(shown);
    expect(added.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('moves updated_at of the meeting and the participant when an approval changes them', async () => {
    const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
    expect((await approve(bob, meeting.id)).status).toBe(200);
    const after = (await getMeeting(meeting.id)).body;
    const bobBefore = meeting.participants.find((p) => p.user_id === bob.id);
    const bobAfter = after.participants.find((p) => p.user_id === bob.id);
    expect(after.updated_at > meeting.updated_at).toBe(true);
    expect(after.created_at).toBe(meeting.created_at);
    expect(bobAfter?.updated_at && bobBefore && bobAfter.updated_at > bobBefore.updated_at).toBe(
      true,
    );
  });
});
