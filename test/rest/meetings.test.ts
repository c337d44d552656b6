import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';
import {
  createMeetingViaRest,
  expectAnswer,
  expectMeetingKeys,
  expectParticipantKeys,
  meetingPublic,
  participantPublic,
  publicOf,
  UNKNOWN_ID,
  userPublic,
  type WireMeeting,
  type WireParticipant,
} from './rest-fixtures';

const meetingNotFound = { errors: 'MEETING_NOT_FOUND' };

describe('reading meetings and adding participants over REST', () => {
  const t = useTestApp();
  const { rest } = t;
  let owner: SeededUser;
  let bob: SeededUser;
  let carol: SeededUser;
  let dave: SeededUser;
  let stranger: SeededUser;
  let admin: SeededUser;
  let superuser: SeededUser;

  beforeAll(async () => {
    [owner, bob, carol, dave, stranger, admin, superuser] = (await t.seed.users(7)) as [
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
    ];
    await t.seed.update(admin, { roles: 'admin' as never });
    await t.seed.update(superuser, { isSuperuser: true });
  });

  const getMeeting = (by: SeededUser, id: string) =>
    rest.get<WireMeeting>(`/meeting/${id}`, { token: by.token });
  const addParticipant = (by: SeededUser, meetingId: string, body: unknown) =>
    rest.post<WireParticipant>(
      `/meeting/${meetingId}/participants/add`,
      { json: body },
      { token: by.token },
    );
  const declineAll = async (meeting: WireMeeting, ...guests: SeededUser[]) => {
    for (const guest of guests) {
      const response = await rest.post(`/meeting/${meeting.id}/decline`, undefined, {
        token: guest.token,
      });
      expect(response.status).toBe(200);
    }
  };

  describe('GET /api/v1/meeting/{meeting_id}', () => {
    it('shows the same whole meeting to its owner, a participant, an admin and a superuser', async () => {
      const created = await createMeetingViaRest(rest, owner.token, [bob.id, carol.id]);
      const seen = await Promise.all(
        [owner, bob, admin, superuser].map((v) => getMeeting(v, created.id)),
      );
      for (const response of seen) {
        expectAnswer(response, 200, created);
      }
      expectMeetingKeys(seen[0]?.body as WireMeeting);
      expect(created.participants.map((p) => p.user_id)).toEqual([owner.id, bob.id, carol.id]);
    });

    it('orders the participants by created_at', async () => {
      const created = await createMeetingViaRest(rest, owner.token, [carol.id, bob.id]);
      await addParticipant(owner, created.id, { user_id: dave.id });
      const { body } = await getMeeting(owner, created.id);
      expect(body.participants.map((p) => p.user_id)).toEqual([
        owner.id,
        carol.id,
        bob.id,
        dave.id,
      ]);
      const times = body.participants.map((p) => p.created_at);
      expect([...times].sort()).toEqual(times);
    });

    it('renders a participant who was deleted later with deleted_at as a YYYY-MM-DD date', async () => {
      const leaver = await t.seed.user();
      const created = await createMeetingViaRest(rest, owner.token, [leaver.id, bob.id]);
      await t.seed.update(leaver, { deletedAt: '2026-01-15' });
      const response = await getMeeting(owner, created.id);
      expect(response.status).toBe(200);
      expect(response.body.participants.find((p) => p.user_id === leaver.id)).toEqual(
        participantPublic({
          meeting_id: created.id,
          user_id: leaver.id,
          user: userPublic({
            id: leaver.id,
            name: leaver.name,
            account: leaver.account,
            email: leaver.email,
            deleted_at: '2026-01-15',
          }),
        }),
      );
    });

    it('answers 404 MEETING_NOT_FOUND to a stranger and for an unknown id alike', async () => {
      const created = await createMeetingViaRest(rest, owner.token, [bob.id]);
      const hidden = await getMeeting(stranger, created.id);
      const unknown = await getMeeting(stranger, UNKNOWN_ID);
      expectAnswer(hidden, 404, meetingNotFound);
      expectAnswer(unknown, 404, meetingNotFound);
    });

    it('refuses a malformed meeting id with 422 on meeting_id', async () => {
      for (const id of ['not-a-uuid', '12345', `${UNKNOWN_ID}0`]) {
        expectAnswer(await getMeeting(owner, id), 422, {
          errors: { meeting_id: 'VALIDATION_MEETING_ID_INVALID_UUID' },
        });
      }
    });

    it('never takes /meeting/requests for a meeting id', async () => {
      const response = await rest.get('/meeting/requests', { token: stranger.token });
      expectAnswer(response, 200, []);
    });
  });

  describe('GET /api/v1/meeting/index', () => {
    it('lists the meetings the caller owns or has accepted, and no others', async () => {
      const [host, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
      const owned = await createMeetingViaRest(rest, host.token, [guest.id]);
      const acceptedOnCreate = await createMeetingViaRest(rest, owner.token, [
        { user_id: host.id, status: 'accepted' },
      ]);
      const approved = await createMeetingViaRest(rest, owner.token, [host.id, bob.id]);
      await rest.post(`/meeting/${approved.id}/approve`, undefined, { token: host.token });
      await createMeetingViaRest(rest, owner.token, [host.id]);
      const declined = await createMeetingViaRest(rest, owner.token, [host.id, bob.id]);
      await rest.post(`/meeting/${declined.id}/decline`, undefined, { token: host.token });

      const response = await rest.get<WireMeeting[]>('/meeting/index', { token: host.token });
      expect(response.status).toBe(200);
      expect(response.body.map((m) => m.id).sort()).toEqual(
        [owned.id, acceptedOnCreate.id, approved.id].sort(),
      );
      for (const meeting of response.body) {
        expect(meeting).toEqual(meetingPublic());
        expectMeetingKeys(meeting);
      }
      const guestView = await rest.get<WireMeeting[]>('/meeting/index', { token: guest.token });
      expectAnswer(guestView, 200, []);
    });

    it('pages with skip and limit and validates them', async () => {
      const host = await t.seed.user();
      for (let i = 0; i < 3; i += 1) {
        await createMeetingViaRest(rest, host.token, [bob.id]);
      }
      const all = (await rest.get<WireMeeting[]>('/meeting/index', { token: host.token })).body;
      expect(all).toHaveLength(3);
      const page = await rest.get('/meeting/index', {
        token: host.token,
        query: { skip: 1, limit: 1 },
      });
      expectAnswer(page, 200, [all[1]]);
      expectAnswer(
        await rest.get('/meeting/index', { token: host.token, query: { limit: 101 } }),
        422,
        {
          errors: { limit: 'VALIDATION_LIMIT_TOO_LARGE' },
        },
      );
      expectAnswer(
        await rest.get('/meeting/index', { token: host.token, query: { skip: -1 } }),
        422,
        {
          errors: { skip: 'VALIDATION_SKIP_TOO_SMALL' },
        },
      );
    });
  });

  describe('POST /api/v1/meeting/{meeting_id}/participants/add', () => {
    it('adds a participant with status new by default and answers the whole participant record', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      const response = await addParticipant(owner, meeting.id, { user_id: carol.id });
      expectAnswer(
        response,
        200,
        participantPublic({
          meeting_id: meeting.id,
          user_id: carol.id,
          user: publicOf(carol),
          status: 'new',
        }),
      );
      expectParticipantKeys(response.body);
      const after = await getMeeting(owner, meeting.id);
      expect(after.body.participants.at(-1)).toEqual(response.body);
    });

    it('adds a participant with the status given in the body', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      for (const [user, status] of [
        [carol, 'accepted'],
        [dave, 'declined'],
        [stranger, 'new'],
      ] as const) {
        expectAnswer(
          await addParticipant(owner, meeting.id, { user_id: user.id, status }),
          200,
          participantPublic({
            meeting_id: meeting.id,
            user_id: user.id,
            user: publicOf(user),
            status,
          }),
        );
      }
    });

    it('lets an admin who is not a participant add', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      const response = await addParticipant(admin, meeting.id, { user_id: carol.id });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(
        participantPublic({ meeting_id: meeting.id, user_id: carol.id, user: publicOf(carol) }),
      );
    });

    it('answers 403 ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS to a participant who is not the owner', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      expectAnswer(await addParticipant(bob, meeting.id, { user_id: carol.id }), 403, {
        errors: 'ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS',
      });
    });

    it('answers 404 MEETING_NOT_FOUND to a stranger and for an unknown meeting', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      expectAnswer(
        await addParticipant(stranger, meeting.id, { user_id: carol.id }),
        404,
        meetingNotFound,
      );
      expectAnswer(
        await addParticipant(owner, UNKNOWN_ID, { user_id: carol.id }),
        404,
        meetingNotFound,
      );
    });

    it('answers 404 USER_NOT_FOUND for an unknown user', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      expectAnswer(await addParticipant(owner, meeting.id, { user_id: UNKNOWN_ID }), 404, {
        errors: 'USER_NOT_FOUND',
      });
    });

    it('answers 409 USER_ALREADY_A_PARTICIPANT for a guest or the owner', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      const conflict = { errors: 'USER_ALREADY_A_PARTICIPANT' };
      expectAnswer(await addParticipant(owner, meeting.id, { user_id: bob.id }), 409, conflict);
      expectAnswer(await addParticipant(owner, meeting.id, { user_id: owner.id }), 409, conflict);
    });

    it('lets exactly one of several concurrent duplicate adds win', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => addParticipant(owner, meeting.id, { user_id: carol.id })),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
      for (const response of responses.filter((r) => r.status === 409)) {
        expect(response.body).toEqual({ errors: 'USER_ALREADY_A_PARTICIPANT' });
      }
      const after = await getMeeting(owner, meeting.id);
      expect(after.body.participants.filter((p) => p.user_id === carol.id)).toHaveLength(1);
    });

    it('answers 409 MEETING_CLOSED once the meeting is cancelled', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      await declineAll(meeting, bob);
      expect((await getMeeting(owner, meeting.id)).body.status).toBe('cancelled');
      expectAnswer(await addParticipant(owner, meeting.id, { user_id: carol.id }), 409, {
        errors: 'MEETING_CLOSED',
      });
    });

    it('validates the path id, user_id and status, keyed as the client sent them', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      expectAnswer(await addParticipant(owner, 'not-a-uuid', { user_id: carol.id }), 422, {
        errors: { meeting_id: 'VALIDATION_MEETING_ID_INVALID_UUID' },
      });
      expectAnswer(await addParticipant(owner, meeting.id, {}), 422, {
        errors: { user_id: 'VALIDATION_USER_ID_REQUIRED' },
      });
      expectAnswer(await addParticipant(owner, meeting.id, { user_id: 'carol' }), 422, {
        errors: { user_id: 'VALIDATION_USER_ID_INVALID_UUID' },
      });
      expectAnswer(
        await addParticipant(owner, meeting.id, { user_id: carol.id, status: 'maybe' }),
        422,
        { errors: { status: 'VALIDATION_STATUS_INVALID_CHOICE' } },
      );
    });

    it('reads a JSON body only', async () => {
      const meeting = await createMeetingViaRest(rest, owner.token, [bob.id]);
      const form = await rest.post(
        `/meeting/${meeting.id}/participants/add`,
        { form: { user_id: carol.id } },
        { token: owner.token },
      );
      expectAnswer(form, 415, { errors: 'UNSUPPORTED_MEDIA_TYPE' });
      const broken = await rest.post(
        `/meeting/${meeting.id}/participants/add`,
        { raw: '{"user_id": ', contentType: 'application/json' },
        { token: owner.token },
      );
      expectAnswer(broken, 400, { errors: 'MALFORMED_BODY' });
    });
  });
});
