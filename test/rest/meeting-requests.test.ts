import { Meeting, MeetingStatus } from '../../src/modules/meeting/meeting.entity';
import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';
import {
  createMeetingViaRest,
  expectAnswer,
  expectParticipantKeys,
  participantPublic,
  publicOf,
  UNKNOWN_ID,
  type WireMeeting,
  type WireParticipant,
} from './rest-fixtures';

/** Up to 15 meetings per GraphQL document (the service's alias limit): seeding stays quick. */
const CREATE_MANY = (count: number): string =>
  `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
    ${Array.from(
      { length: count },
      (_, i) =>
        `m${i}: createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { id } }`,
    ).join('\n')}
  }`;

const approved = { message: 'Meeting approved successfully' };
const declined = { message: 'Meeting declined successfully' };

describe('meeting requests and answers over REST', () => {
  const t = useTestApp();
  const { rest } = t;
  let owner: SeededUser;
  let bob: SeededUser;
  let carol: SeededUser;
  let stranger: SeededUser;
  let admin: SeededUser;

  beforeAll(async () => {
    [owner, bob, carol, stranger, admin] = (await t.seed.users(5)) as [
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
    ];
    await t.seed.update(admin, { roles: 'admin' as never });
  });

  const requests = (user: SeededUser, query: Record<string, number | string> = {}) =>
    rest.get<WireParticipant[]>('/meeting/requests', { token: user.token, query });
  const approve = (user: SeededUser, meetingId: string) =>
    rest.post(`/meeting/${meetingId}/approve`, undefined, { token: user.token });
  const decline = (user: SeededUser, meetingId: string) =>
    rest.post(`/meeting/${meetingId}/decline`, undefined, { token: user.token });
  /** Creates `count` meetings owned by `host`, each inviting `invitee`, oldest first. */
  async function inviteMany(
    host: SeededUser,
    invitee: SeededUser,
    count: number,
  ): Promise<Array<{ id: string }>> {
    const created: Array<{ id: string }> = [];
    for (let start = 0; start < count; start += 15) {
      const size = Math.min(15, count - start);
      const data = await t.gql.data<Record<string, { meeting: { id: string } }>>(
        CREATE_MANY(size),
        {
          meeting: {
            title: 'Weekly sync',
            startTime: new Date(Date.now() + 86_400_000).toISOString(),
            location: 'Room 101, HQ',
          },
          participants: [{ userId: invitee.id }],
        },
        host.token,
      );
      created.push(
        ...Array.from({ length: size }, (_, i) => data[`m${i}`]?.meeting as { id: string }),
      );
    }
    return created;
  }

  /** Sets a status no endpoint sets directly (completed), or one the rules would not allow. */
  const forceStatus = (meetingId: string, status: MeetingStatus) =>
    t.instance.database.orm.em.fork().nativeUpdate(Meeting, { id: meetingId }, { status });
  const meetingOf = async (meetingId: string) =>
    (await rest.get<WireMeeting>(`/meeting/${meetingId}`, { token: owner.token })).body;
  const statusesOf = async (meetingId: string) => {
    const meeting = await meetingOf(meetingId);
    return {
      meeting: meeting.status,
      participants: Object.fromEntries(meeting.participants.map((p) => [p.user_id, p.status])),
    };
  };

  describe('GET /api/v1/meeting/requests', () => {
    it("answers a bare array of the caller's own new participations in open meetings, newest first", async () => {
      const invitee = await t.seed.user();
      const older = await createMeetingViaRest(rest, owner.token, [invitee.id, bob.id]);
      const newer = await createMeetingViaRest(rest, carol.token, [bob.id, invitee.id]);
      // Not requests: accepted, declined, answered later, and a cancelled meeting.
      await createMeetingViaRest(rest, owner.token, [{ user_id: invitee.id, status: 'accepted' }]);
      await createMeetingViaRest(rest, owner.token, [
        bob.id,
        { user_id: invitee.id, status: 'declined' },
      ]);
      const answered = await createMeetingViaRest(rest, owner.token, [invitee.id, bob.id]);
      await approve(invitee, answered.id);
      const cancelled = await createMeetingViaRest(rest, owner.token, [invitee.id]);
      await decline(invitee, cancelled.id);
      // Someone else's meeting the invitee is not part of.
      await createMeetingViaRest(rest, owner.token, [bob.id]);

      const response = await requests(invitee);
      const mine = (meeting: WireMeeting) =>
        meeting.participants.find((p) => p.user_id === invitee.id) as WireParticipant;
      expectAnswer(response, 200, [mine(newer), mine(older)]);
      expect(response.body[0]).toEqual(
        participantPublic({
          meeting_id: newer.id,
          user_id: invitee.id,
          user: publicOf(invitee),
          status: 'new',
        }),
      );
      for (const participant of response.body) {
        expectParticipantKeys(participant);
      }
    });

    it('lists new participations in pending and confirmed meetings, but not in cancelled or completed ones', async () => {
      const invitee = await t.seed.user();
      const byStatus: Record<string, WireMeeting> = {};
      for (const status of [
        MeetingStatus.PENDING,
        MeetingStatus.CONFIRMED,
        MeetingStatus.CANCELLED,
        MeetingStatus.COMPLETED,
      ]) {
        byStatus[status] = await createMeetingViaRest(rest, owner.token, [invitee.id]);
        await forceStatus((byStatus[status] as WireMeeting).id, status);
      }
      const response = await requests(invitee);
      expect(response.status).toBe(200);
      expect(response.body.map((p) => p.meeting_id)).toEqual([
        byStatus.confirmed?.id,
        byStatus.pending?.id,
      ]);
    });

    it('answers an empty array when there is nothing to answer', async () => {
      const loner = await t.seed.user();
      expectAnswer(await requests(loner), 200, []);
    });

    describe('with more than a hundred invitations', () => {
      let invitee: SeededUser;
      let meetings: Array<{ id: string }>;

      beforeAll(async () => {
        invitee = await t.seed.user();
        meetings = await inviteMany(owner, invitee, 101);
      });

      it('answers 100 of them by default, and the rest with skip', async () => {
        const first = await requests(invitee);
        expect(first.status).toBe(200);
        expect(first.body).toHaveLength(100);
        const rest100 = await requests(invitee, { skip: 100 });
        expect(rest100.body).toHaveLength(1);
        const ids = [...first.body, ...rest100.body].map((p) => p.meeting_id);
        expect(new Set(ids)).toEqual(new Set(meetings.map((m) => m.id)));
      });

      it('answers 100 meetings by default on the meeting index too', async () => {
        const index = await rest.get<WireMeeting[]>('/meeting/index', { token: owner.token });
        expect(index.status).toBe(200);
        expect(index.body).toHaveLength(100);
      });

      it('pages with skip and limit, newest first', async () => {
        const all = (await requests(invitee, { limit: 100 })).body;
        const times = all.map((p) => p.created_at);
        expect([...times].sort().reverse()).toEqual(times);
        expectAnswer(await requests(invitee, { skip: 2, limit: 3 }), 200, all.slice(2, 5));
        expectAnswer(await requests(invitee, { limit: 1 }), 200, all.slice(0, 1));
        expectAnswer(await requests(invitee, { skip: 500 }), 200, []);
      });
    });

    it('validates skip and limit', async () => {
      const cases: Array<[Record<string, number | string>, Record<string, string>]> = [
        [{ limit: 0 }, { limit: 'VALIDATION_LIMIT_TOO_SMALL' }],
        [{ limit: 101 }, { limit: 'VALIDATION_LIMIT_TOO_LARGE' }],
        [{ skip: -1 }, { skip: 'VALIDATION_SKIP_TOO_SMALL' }],
        [{ limit: 'all' }, { limit: 'VALIDATION_LIMIT_MUST_BE_INTEGER' }],
        [{ skip: '2.5' }, { skip: 'VALIDATION_SKIP_MUST_BE_INTEGER' }],
      ];
      for (const [query, errors] of cases) {
        expectAnswer(await requests(bob, query), 422, { errors });
      }
    });
  });

  describe('POST /api/v1/meeting/{meeting_id}/approve', () => {
    it('accepts for the caller, and confirms the meeting once everyone has accepted', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id, carol.id]);
      expectAnswer(await approve(bob, meeting.id), 200, approved);
      expect(await statusesOf(meeting.id)).toEqual({
        meeting: 'pending',
        participants: { [owner.id]: 'accepted', [bob.id]: 'accepted', [carol.id]: 'new' },
      });
      expectAnswer(await approve(carol, meeting.id), 200, approved);
      expect(await statusesOf(meeting.id)).toEqual({
        meeting: 'confirmed',
        participants: { [owner.id]: 'accepted', [bob.id]: 'accepted', [carol.id]: 'accepted' },
      });
      expect((await requests(carol)).body.map((p) => p.meeting_id)).not.toContain(meeting.id);
    });

    it('is idempotent', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      expectAnswer(await approve(bob, meeting.id), 200, approved);
      const once = await meetingOf(meeting.id);
      expectAnswer(await approve(bob, meeting.id), 200, approved);
      const twice = await meetingOf(meeting.id);
      expect(twice.status).toBe('confirmed');
      expect(twice.participants.map((p) => [p.user_id, p.status])).toEqual(
        once.participants.map((p) => [p.user_id, p.status]),
      );
      expectAnswer(await approve(owner, meeting.id), 200, approved);
    });

    it('confirms the meeting when every guest approves at the same time', async () => {
      const guests = await t.seed.users(4);
      const meeting = await createMeetingViaRest(
        rest,
        owner.token,
        guests.map((g) => g.id),
      );
      const answers = await Promise.all(guests.map((guest) => approve(guest, meeting.id)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      expect((await statusesOf(meeting.id)).meeting).toBe('confirmed');
    });

    it('ignores any body, even malformed JSON or an unknown media type', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id, carol.id]);
      const malformed = await rest.post(
        `/meeting/${meeting.id}/approve`,
        { raw: '{"status": "declined",', contentType: 'application/json' },
        { token: bob.token },
      );
      expectAnswer(malformed, 200, approved);
      const declineInBody = await rest.post(
        `/meeting/${meeting.id}/approve`,
        { json: { status: 'declined', meeting_id: UNKNOWN_ID } },
        { token: carol.token },
      );
      expectAnswer(declineInBody, 200, approved);
      const text = await rest.post(
        `/meeting/${meeting.id}/approve`,
        { raw: 'yes please', contentType: 'text/plain' },
        { token: carol.token },
      );
      expectAnswer(text, 200, approved);
      expect((await statusesOf(meeting.id)).meeting).toBe('confirmed');
    });

    it('answers 404 MEETING_NOT_FOUND to a stranger and for an unknown meeting', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      expectAnswer(await approve(stranger, meeting.id), 404, { errors: 'MEETING_NOT_FOUND' });
      expectAnswer(await approve(bob, UNKNOWN_ID), 404, { errors: 'MEETING_NOT_FOUND' });
    });

    it('answers 403 NOT_A_PARTICIPANT to an admin who can see the meeting but is not in it', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      expectAnswer(await approve(admin, meeting.id), 403, { errors: 'NOT_A_PARTICIPANT' });
    });

    it('answers 409 MEETING_CLOSED once the meeting is cancelled', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      await decline(bob, meeting.id);
      expectAnswer(await approve(bob, meeting.id), 409, { errors: 'MEETING_CLOSED' });
      expectAnswer(await approve(owner, meeting.id), 409, { errors: 'MEETING_CLOSED' });
    });

    it('answers 409 MEETING_CLOSED on a completed meeting', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      await forceStatus(meeting.id, MeetingStatus.COMPLETED);
      expectAnswer(await approve(bob, meeting.id), 409, { errors: 'MEETING_CLOSED' });
      const add = await rest.post(
        `/meeting/${meeting.id}/participants/add`,
        { json: { user_id: carol.id } },
        { token: owner.token },
      );
      expectAnswer(add, 409, { errors: 'MEETING_CLOSED' });
    });

    it('refuses a malformed meeting id with 422 on meeting_id', async () => {
      expectAnswer(await approve(bob, 'requests'), 422, {
        errors: { meeting_id: 'VALIDATION_MEETING_ID_INVALID_UUID' },
      });
    });
  });

  describe('POST /api/v1/meeting/{meeting_id}/decline', () => {
    it('declines for the caller, and cancels the meeting once every guest has declined', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id, carol.id]);
      expectAnswer(await decline(bob, meeting.id), 200, declined);
      expect(await statusesOf(meeting.id)).toEqual({
        meeting: 'pending',
        participants: { [owner.id]: 'accepted', [bob.id]: 'declined', [carol.id]: 'new' },
      });
      expectAnswer(await decline(carol, meeting.id), 200, declined);
      expect(await statusesOf(meeting.id)).toEqual({
        meeting: 'cancelled',
        participants: { [owner.id]: 'accepted', [bob.id]: 'declined', [carol.id]: 'declined' },
      });
      expect((await requests(carol)).body.map((p) => p.meeting_id)).not.toContain(meeting.id);
    });

    it('cancels the meeting when every guest declines at the same time', async () => {
      const guests = await t.seed.users(4);
      const meeting = await createMeetingViaRest(
        rest,
        owner.token,
        guests.map((g) => g.id),
      );
      const answers = await Promise.all(guests.map((guest) => decline(guest, meeting.id)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      expect((await statusesOf(meeting.id)).meeting).toBe('cancelled');
    });

    it('keeps the meeting among the requests of a guest who has not answered while another declines', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id, carol.id]);
      expect((await requests(carol)).body.map((p) => p.meeting_id)).toContain(meeting.id);
      await decline(bob, meeting.id);
      expect((await requests(carol)).body.map((p) => p.meeting_id)).toContain(meeting.id);
    });

    it('answers 404 MEETING_NOT_FOUND to a stranger and 409 MEETING_CLOSED on a cancelled meeting', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      expectAnswer(await decline(stranger, meeting.id), 404, { errors: 'MEETING_NOT_FOUND' });
      expectAnswer(await decline(bob, meeting.id), 200, declined);
      expectAnswer(await decline(bob, meeting.id), 409, { errors: 'MEETING_CLOSED' });
    });
  });
});
