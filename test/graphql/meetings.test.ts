import { useTestApp } from '../helpers/use-test-app';
import type { SeededUser } from '../helpers/seed';

const MEETING = `query ($id: UUID!) {
  meeting(meetingId: $id) {
    id title type status startTime location locationUrl ownerId appointedBy assignedTo createdAt updatedAt
    owner { id }
    participants { id meetingId userId status createdAt updatedAt user { id account } }
  }
}`;
const CREATE = `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) {
    meeting {
      id title type status ownerId locationUrl appointedBy assignedTo
      participants { userId status }
    }
  }
}`;
const ADD = `mutation ($meetingId: UUID!, $userId: UUID!, $status: ParticipantStatus) {
  addParticipant(input: { meetingId: $meetingId, userId: $userId, status: $status }) {
    participant { id meetingId userId status user { id } }
  }
}`;
const APPROVE = `mutation ($id: UUID!) { approveMeeting(input: { meetingId: $id }) { meeting { id status } } }`;
const DECLINE = `mutation ($id: UUID!) { declineMeeting(input: { meetingId: $id }) { meeting { id status } } }`;
const REQUESTS = `query ($skip: Int, $limit: Int) {
  meetingRequests(skip: $skip, limit: $limit) { id status meetingId meeting { id status } }
}`;
const MINE = `query { myMeetings { id } }`;

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();
const meetingInput = (overrides: Record<string, unknown> = {}) => ({
  title: 'Quarterly planning',
  startTime: inHours(48),
  location: 'Room 4, second floor',
  ...overrides,
});

describe('meetings', () => {
  const t = useTestApp();
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

  describe('creating', () => {
    it('creates a pending meeting with the owner accepted first and guests new', async () => {
      const data = await t.gql.data<{ createMeeting: { meeting: Record<string, unknown> } }>(
        CREATE,
        {
          meeting: meetingInput({
            type: 'STANDUP',
            locationUrl: 'https://meet.example.com/x',
            appointedBy: bob.id,
          }),
          participants: [{ userId: bob.id }, { userId: carol.id, status: 'ACCEPTED' }],
        },
        owner.token,
      );
      expect(data.createMeeting.meeting).toEqual({
        id: expect.any(String),
        title: 'Quarterly planning',
        type: 'STANDUP',
        status: 'PENDING',
        ownerId: owner.id,
        locationUrl: 'https://meet.example.com/x',
        appointedBy: bob.id,
        assignedTo: null,
        participants: [
          { userId: owner.id, status: 'ACCEPTED' },
          { userId: bob.id, status: 'NEW' },
          { userId: carol.id, status: 'ACCEPTED' },
        ],
      });
    });

    it('defaults the type to all-hands', async () => {
      const data = await t.gql.data<{ createMeeting: { meeting: { type: string } } }>(
        CREATE,
        { meeting: meetingInput(), participants: [{ userId: bob.id }] },
        owner.token,
      );
      expect(data.createMeeting.meeting.type).toBe('ALL_HANDS');
    });

    it('refuses a past start, short texts, no participants, and the owner as a guest', async () => {
      const bad = await t.gql.error(
        CREATE,
        {
          meeting: meetingInput({
            title: 'Short',
            location: 'Hall',
            startTime: inHours(-1),
            locationUrl: 'u'.repeat(101),
          }),
          participants: [],
        },
        owner.token,
      );
      expect(bad.extensions?.fields).toEqual({
        'meeting.title': 'TOO_SHORT',
        'meeting.location': 'TOO_SHORT',
        'meeting.startTime': 'MUST_BE_FUTURE',
        'meeting.locationUrl': 'TOO_LONG',
        participants: 'TOO_SHORT',
      });
      const self = await t.gql.error(
        CREATE,
        { meeting: meetingInput(), participants: [{ userId: bob.id }, { userId: owner.id }] },
        owner.token,
      );
      expect(self.extensions?.fields).toEqual({ 'participants.1.userId': 'INVALID_CHOICE' });
      const malformed = await t.gql.error(
        CREATE,
        { meeting: meetingInput({ startTime: 'tomorrow' }), participants: [{ userId: 'nope' }] },
        owner.token,
      );
      expect(malformed.extensions?.fields).toEqual({
        'meeting.startTime': 'INVALID_DATE',
        'participants.0.userId': 'INVALID_UUID',
      });
    });

    it('refuses an unknown participant', async () => {
      const error = await t.gql.error(
        CREATE,
        {
          meeting: meetingInput(),
          participants: [{ userId: '00000000-0000-4000-8000-000000000000' }],
        },
        owner.token,
      );
      expect(error.extensions).toMatchObject({ code: 'NOT_FOUND', reason: 'USER_NOT_FOUND' });
    });
  });

  describe('reading', () => {
    it('shows the meeting to its owner, participants and admins, with ordered participants', async () => {
      const meeting = await t.seed.meeting(owner).inviting(bob, carol).create();
      for (const viewer of [owner, bob, admin]) {
        const data = await t.gql.data<{ meeting: { participants: Array<{ userId: string }> } }>(
          MEETING,
          { id: meeting.id },
          viewer.token,
        );
        expect(data.meeting.participants.map((p) => p.userId)).toEqual([
          owner.id,
          bob.id,
          carol.id,
        ]);
      }
      const full = await t.gql.data<{ meeting: Record<string, unknown> }>(
        MEETING,
        { id: meeting.id },
        bob.token,
      );
      expect(full.meeting).toMatchObject({
        id: meeting.id,
        status: 'PENDING',
        type: 'ALL_HANDS',
        ownerId: owner.id,
        owner: { id: owner.id },
        locationUrl: null,
        appointedBy: null,
        assignedTo: null,
      });
    });

    it('answers "not found" to a stranger and for an unknown id alike', async () => {
      const meeting = await t.seed.meeting(owner).inviting(bob).create();
      const hidden = await t.gql.error(MEETING, { id: meeting.id }, stranger.token);
      const unknown = await t.gql.error(
        MEETING,
        { id: '00000000-0000-4000-8000-000000000000' },
        stranger.token,
      );
      expect(hidden).toMatchObject({
        extensions: { code: 'NOT_FOUND', reason: 'MEETING_NOT_FOUND' },
      });
      expect(unknown.extensions).toEqual(hidden.extensions);
      const malformed = await t.gql.error(MEETING, { id: 'requests' }, stranger.token);
      expect(malformed.extensions?.fields).toEqual({ meetingId: 'INVALID_UUID' });
    });

    it('lists the meetings the caller owns or accepted', async () => {
      const dave = await t.seed.user();
      const own = await t.seed.meeting(dave).inviting(bob).create();
      const invited = await t.seed.meeting(carol).inviting(dave).create();
      const accepted = await t.seed.meeting(carol).inviting(dave).startingInHours(72).create();
      await t.gql.data(APPROVE, { id: accepted.id }, dave.token);
      const data = await t.gql.data<{ myMeetings: Array<{ id: string }> }>(MINE, {}, dave.token);
      expect(data.myMeetings.map((m) => m.id)).toEqual([accepted.id, own.id]);
      expect(data.myMeetings.map((m) => m.id)).not.toContain(invited.id);
    });
  });

  describe('adding participants', () => {
    it('lets the owner add a user with a chosen status', async () => {
      const meeting = await t.seed.meeting(owner).inviting(bob).create();
      const data = await t.gql.data<{ addParticipant: { participant: Record<string, unknown> } }>(
        ADD,
        { meetingId: meeting.id, userId: carol.id, status: 'DECLINED' },
        owner.token,
      );
      expect(data.addParticipant.participant).toEqual({
        id: expect.any(String),
        meetingId: meeting.id,
        userId: carol.id,
        status: 'DECLINED',
        user: { id: carol.id },
      });
    });

    it('refuses participants (403), strangers (404), unknown users (404) and duplicates (409)', async () => {
      const meeting = await t.seed.meeting(owner).inviting(bob).create();
      const asGuest = await t.gql.error(
        ADD,
        { meetingId: meeting.id, userId: carol.id },
        bob.token,
      );
      expect(asGuest.extensions).toEqual({
        code: 'FORBIDDEN',
        reason: 'ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS',
      });
      const asStranger = await t.gql.error(
        ADD,
        { meetingId: meeting.id, userId: carol.id },
        stranger.token,
      );
      expect(asStranger.extensions).toMatchObject({ reason: 'MEETING_NOT_FOUND' });
      const unknown = await t.gql.error(
        ADD,
        { meetingId: meeting.id, userId: '00000000-0000-4000-8000-000000000000' },
        owner.token,
      );
      expect(unknown.extensions).toMatchObject({ reason: 'USER_NOT_FOUND' });
      const duplicate = await t.gql.error(
        ADD,
        { meetingId: meeting.id, userId: bob.id },
        owner.token,
      );
      expect(duplicate.extensions).toEqual({
        code: 'CONFLICT',
        reason: 'USER_ALREADY_A_PARTICIPANT',
      });
    });

    it('lets an admin add to any meeting', async () => {
      const meeting = await t.seed.meeting(owner).inviting(bob).create();
      const data = await t.gql.data<{ addParticipant: { participant: { userId: string } } }>(
        ADD,
        { meetingId: meeting.id, userId: carol.id },
        admin.token,
      );
      expect(data.addParticipant.participant.userId).toBe(carol.id);
    });

    it('admits exactly one of many concurrent adds of the same user', async () => {
      const meeting = await t.seed.meeting(owner).inviting(bob).create();
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.gql.request(ADD, { meetingId: meeting.id, userId: carol.id }, owner.token),
        ),
      );
      const added = results.filter((r) => !r.errors);
      const conflicts = results.filter(
        (r) => r.errors?.[0]?.extensions?.reason === 'USER_ALREADY_A_PARTICIPANT',
      );
      expect(added).toHaveLength(1);
      expect(conflicts).toHaveLength(9);
      const data = await t.gql.data<{ meeting: { participants: unknown[] } }>(
        MEETING,
        { id: meeting.id },
        owner.token,
      );
      expect(data.meeting.participants).toHaveLength(3);
    });
  });

  describe('answering', () => {
    it('confirms the meeting once everyone accepted; approving twice changes nothing', async () => {
      const meeting = await t.seed.meeting(owner).inviting(bob, carol).create();
      expect(
        (
          await t.gql.data<{ approveMeeting: { meeting: { status: string } } }>(
            APPROVE,
            { id: meeting.id },
            bob.token,
          )
        ).approveMeeting.meeting.status,
      ).toBe('PENDING');
      expect(
        (
          await t.gql.data<{ approveMeeting: { meeting: { status: string } } }>(
            APPROVE,
            { id: meeting.id },
            bob.token,
          )
        ).approveMeeting.meeting.status,
      ).toBe('PENDING');
      expect(
        (
          await t.gql.data<{ approveMeeting: { meeting: { status: string } } }>(
            APPROVE,
            { id: meeting.id },
            carol.token,
          )
        ).approveMeeting.meeting.status,
      ).toBe('CONFIRMED');
    });

    it('confirms exactly once when every participant approves at the same time', async () => {
      const guests = await t.seed.users(6);
      const meeting = await t.seed
        .meeting(owner)
        .inviting(...guests)
        .create();
      const results = await Promise.all(
        guests.map((guest) => t.gql.request(APPROVE, { id: meeting.id }, guest.token)),
      );
      expect(results.every((r) => !r.errors)).toBe(true);
      const data = await t.gql.data<{
        meeting: { status: string; participants: Array<{ status: string }> };
      }>(MEETING, { id: meeting.id }, owner.token);
      expect(data.meeting.status).toBe('CONFIRMED');
      expect(data.meeting.participants.every((p) => p.status === 'ACCEPTED')).toBe(true);
    });

    it('cancels the meeting once every guest declined, then refuses changes', async () => {
      const meeting = await t.seed.meeting(owner).inviting(bob, carol).create();
      await t.gql.data(DECLINE, { id: meeting.id }, bob.token);
      const last = await t.gql.data<{ declineMeeting: { meeting: { status: string } } }>(
        DECLINE,
        { id: meeting.id },
        carol.token,
      );
      expect(last.declineMeeting.meeting.status).toBe('CANCELLED');
      const approve = await t.gql.error(APPROVE, { id: meeting.id }, bob.token);
      expect(approve.extensions).toEqual({ code: 'CONFLICT', reason: 'MEETING_CLOSED' });
      const add = await t.gql.error(
        ADD,
        { meetingId: meeting.id, userId: stranger.id },
        owner.token,
      );
      expect(add.extensions).toEqual({ code: 'CONFLICT', reason: 'MEETING_CLOSED' });
    });

    it('refuses answers from non-participants: 403 to an admin who can see it, 404 to a stranger', async () => {
      const meeting = await t.seed.meeting(owner).inviting(bob).create();
      expect((await t.gql.error(APPROVE, { id: meeting.id }, admin.token)).extensions).toEqual({
        code: 'FORBIDDEN',
        reason: 'NOT_A_PARTICIPANT',
      });
      expect(
        (await t.gql.error(APPROVE, { id: meeting.id }, stranger.token)).extensions,
      ).toMatchObject({ reason: 'MEETING_NOT_FOUND' });
      expect(
        (await t.gql.error(DECLINE, { id: meeting.id }, owner.token)).extensions,
      ).toMatchObject({ code: 'FORBIDDEN' });
    });
  });

  describe('requests', () => {
    it("lists the caller's unanswered invitations to open meetings, newest first, paginated", async () => {
      const erin = await t.seed.user();
      const first = await t.seed.meeting(owner).inviting(erin).create();
      const second = await t.seed.meeting(bob).inviting(erin).create();
      const answered = await t.seed.meeting(carol).inviting(erin).create();
      await t.gql.data(APPROVE, { id: answered.id }, erin.token);
      const cancelled = await t.seed.meeting(carol).inviting(erin, bob).create();
      await t.gql.data(DECLINE, { id: cancelled.id }, bob.token);
      // erin's invitation stays new, but the meeting is not cancelled until every guest declined
      const data = await t.gql.data<{
        meetingRequests: Array<{ meetingId: string; status: string }>;
      }>(REQUESTS, {}, erin.token);
      expect(data.meetingRequests.map((r) => r.meetingId)).toEqual([
        cancelled.id,
        second.id,
        first.id,
      ]);
      expect(data.meetingRequests.every((r) => r.status === 'NEW')).toBe(true);
      const page = await t.gql.data<{ meetingRequests: Array<{ meetingId: string }> }>(
        REQUESTS,
        { skip: 1, limit: 1 },
        erin.token,
      );
      expect(page.meetingRequests.map((r) => r.meetingId)).toEqual([second.id]);
      const tooMany = await t.gql.error(REQUESTS, { limit: 101 }, erin.token);
      expect(tooMany.extensions?.fields).toEqual({ limit: 'TOO_LARGE' });
    });

    it('drops invitations to cancelled meetings', async () => {
      const frank = await t.seed.user();
      const meeting = await t.seed.meeting(owner).inviting(frank, bob).create();
      await t.gql.data(DECLINE, { id: meeting.id }, bob.token);
      await t.gql.data(DECLINE, { id: meeting.id }, frank.token);
      const data = await t.gql.data<{ meetingRequests: unknown[] }>(REQUESTS, {}, frank.token);
      expect(data.meetingRequests).toEqual([]);
    });
  });

  it('requires authentication before looking at any input', async () => {
    const error = await t.gql.error(MEETING, { id: 'not-a-uuid' });
    expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'NOT_AUTHENTICATED' });
  });
});
