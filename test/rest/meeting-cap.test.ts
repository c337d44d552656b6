import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';
import { createMeetingViaRest, meetingBody, type WireParticipant } from './rest-fixtures';

/** A small cap, so a full meeting takes a handful of users. */
const CAP = 4;

const ADD = `mutation ($meetingId: UUID!, $userId: UUID!) {
  addParticipant(input: { meetingId: $meetingId, userId: $userId }) { participant { id } }
}`;
const CREATE = `mutation ($participants: [ParticipantInput!]!) {
  createMeeting(input: {
    meeting: { title: "Too many", startTime: "2099-01-01T10:00:00Z", location: "Room 1" },
    participants: $participants
  }) { meeting { id } }
}`;

describe('a meeting holds at most MAX_PARTICIPANTS_PER_MEETING participants', () => {
  const t = useTestApp({ MAX_PARTICIPANTS_PER_MEETING: String(CAP) });
  const { rest } = t;
  let owner: SeededUser;

  beforeAll(async () => {
    owner = await t.seed.user();
  });

  const add = (meetingId: string, userId: string) =>
    rest.post<WireParticipant>(
      `/meeting/${meetingId}/participants/add`,
      { json: { user_id: userId } },
      { token: owner.token },
    );
  const participantCount = async (meetingId: string): Promise<number> => {
    const rows = await t.instance.database.orm.em
      .fork()
      .getConnection()
      .execute<
        Array<{ n: number }>
      >('select count(*)::int as "n" from "participants" where "meeting_id" = ?', [meetingId]);
    return rows[0]?.n ?? -1;
  };

  it('adds up to the cap over REST, then answers 409 MEETING_FULL and writes nothing', async () => {
    const guests = await t.seed.bulkUsers(CAP);
    const meeting = await createMeetingViaRest(rest, owner.token, [guests[0]?.id as string]);
    for (const guest of guests.slice(1, CAP - 1)) {
      expect((await add(meeting.id, guest.id)).status).toBe(200);
    }
    const full = await add(meeting.id, guests[CAP - 1]?.id as string);
    expect(full.status).toBe(409);
    expect(full.text).toBe('{"errors":"MEETING_FULL"}');
    expect(await participantCount(meeting.id)).toBe(CAP);
  });

  it('creates a meeting with the cap exactly over REST, and refuses one guest more with 409 MEETING_FULL', async () => {
    const guests = await t.seed.bulkUsers(CAP);
    const exactly = await rest.post(
      '/meeting/create',
      { json: meetingBody(guests.slice(0, CAP - 1).map((guest) => guest.id)) },
      { token: owner.token },
    );
    expect(exactly.status).toBe(201);
    const tooMany = await rest.post(
      '/meeting/create',
      { json: meetingBody(guests.map((guest) => guest.id)) },
      { token: owner.token },
    );
    expect(tooMany.status).toBe(409);
    expect(tooMany.text).toBe('{"errors":"MEETING_FULL"}');
  });

  it('answers CONFLICT with reason MEETING_FULL over GraphQL, for an add and a create', async () => {
    const guests = await t.seed.bulkUsers(CAP);
    const created = await t.gql.data<{ createMeeting: { meeting: { id: string } } }>(
      CREATE,
      { participants: guests.slice(0, CAP - 1).map((guest) => ({ userId: guest.id })) },
      owner.token,
    );
    const meetingId = created.createMeeting.meeting.id;
    const added = await t.gql.request(ADD, { meetingId, userId: guests[CAP - 1]?.id }, owner.token);
    expect(added.data).toBeNull();
    expect(added.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT',
      reason: 'MEETING_FULL',
    });
    const tooMany = await t.gql.request(
      CREATE,
      { participants: guests.map((guest) => ({ userId: guest.id })) },
      owner.token,
    );
    expect(tooMany.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT',
      reason: 'MEETING_FULL',
    });
    expect(await participantCount(meetingId)).toBe(CAP);
  });

  it('never lets concurrent adds past the cap: exactly the free places are taken', async () => {
    const guests = await t.seed.bulkUsers(12);
    for (let round = 0; round < 3; round += 1) {
      // The owner and one guest: CAP - 2 places left for 12 concurrent adds.
      const meeting = await createMeetingViaRest(rest, owner.token, [guests[0]?.id as string]);
      const answers = await Promise.all(guests.slice(1).map((guest) => add(meeting.id, guest.id)));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses.filter((status) => status === 200)).toHaveLength(CAP - 2);
      expect(
        answers.filter((answer) => answer.status !== 200).map((answer) => answer.text),
      ).toEqual(Array(guests.length - 1 - (CAP - 2)).fill('{"errors":"MEETING_FULL"}'));
      expect(await participantCount(meeting.id)).toBe(CAP);
    }
  });
});
