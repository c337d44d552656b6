import { Meeting } from '../../src/modules/meeting/meeting.entity';
import type { RestClient } from '../helpers/rest-client';
import { startWorld } from '../authz/authz-fixtures';
import type { SeededMeeting, SeededUser } from '../helpers/seed';
import type { TestApp } from '../helpers/test-app';

type LifecycleMutation =
  | 'updateMeeting'
  | 'rescheduleMeeting'
  | 'cancelMeeting'
  | 'completeMeeting'
  | 'removeParticipant'
  | 'leaveMeeting';

interface ShownMeeting {
  id: string;
  title: string;
  type: string;
  status: string;
  startTime: string;
  location: string;
  locationUrl: string | null;
  appointedBy: string | null;
  assignedTo: string | null;
  participants: Array<{ userId: string; status: string }>;
}

const FIELDS = `id title type status startTime location locationUrl appointedBy assignedTo
  participants { userId status }`;
const APPROVE = `mutation ($id: UUID!) { approveMeeting(input: { meetingId: $id }) { meeting { status } } }`;
const READ = `query ($id: UUID!) { meeting(meetingId: $id) { ${FIELDS} } }`;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

const HIDDEN = { code: 'NOT_FOUND', reason: 'MEETING_NOT_FOUND' };
const ANONYMOUS = { code: 'UNAUTHENTICATED', reason: 'NOT_AUTHENTICATED' };
const CLOSED = { code: 'CONFLICT', reason: 'MEETING_CLOSED' };
const forbidden = (reason: string) => ({ code: 'FORBIDDEN', reason });
const conflict = (reason: string) => ({ code: 'CONFLICT', reason });

type Input = Record<string, unknown>;

const NAMES = ['owner', 'bob', 'carol', 'admin'];

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();
const inputTypeOf = (name: LifecycleMutation) => `${name[0]?.toUpperCase()}${name.slice(1)}Input`;

describe('the meeting lifecycle over GraphQL', () => {
  let t: TestApp;
  let rest: RestClient;
  let owner: SeededUser;
  let bob: SeededUser;
  let carol: SeededUser;
  let stranger: SeededUser;
  let admin: SeededUser;

  beforeAll(async () => {
    const world = await startWorld();
    ({ t, rest } = world);
    ({ owner, participant: bob, stranger, admin } = world.users);
    carol = await t.seed.user();
  });
  afterAll(() => t.close());

  const request = (name: LifecycleMutation, input: Input, token?: string) =>
    t.gql.request<Record<string, { meeting: ShownMeeting | null }>>(
      `mutation ($input: ${inputTypeOf(name)}!) { ${name}(input: $input) { meeting { ${FIELDS} } } }`,
      { input },
      token,
    );

  /** Runs a lifecycle mutation that must succeed; answers the payload's meeting. */
  async function change(name: LifecycleMutation, input: Input, user: SeededUser) {
    const result = await request(name, input, user.token);
    expect(result.errors).toBeUndefined();
    return result.data?.[name]?.meeting ?? null;
  }

  /** Runs a lifecycle mutation that must fail; answers its error's extensions. */
  async function refusal(name: LifecycleMutation, input: Input, user?: SeededUser) {
    const result = await request(name, input, user?.token);
    expect(result.data ?? null).toBeNull();
    return result.errors?.[0]?.extensions;
  }

  const read = async (meetingId: string, user: SeededUser = owner) =>
    (await t.gql.data<{ meeting: ShownMeeting }>(READ, { id: meetingId }, user.token)).meeting;
  const approve = (meetingId: string, user: SeededUser) =>
    t.gql.request(APPROVE, { id: meetingId }, user.token);
  const readOverRest = async (meetingId: string) =>
    (await rest.get<Record<string, unknown>>(`/meeting/${meetingId}`, { token: owner.token })).body;
  /** Who takes part and how they answered, by name: `['owner ACCEPTED', 'bob NEW']`. */
  const answers = (meeting: ShownMeeting | null) => {
    const names = new Map([owner, bob, carol, admin].map((u, i) => [u.id, NAMES[i]]));
    return meeting?.participants.map((p) => `${names.get(p.userId)} ${p.status}`);
  };

  /** A pending meeting of `owner` inviting bob (accepted when asked) and carol (new). */
  const meetingWithGuests = (bobAccepted = false): Promise<SeededMeeting> =>
    bobAccepted
      ? t.seed.meeting(owner).invitingAs('ACCEPTED', bob).inviting(carol).create()
      : t.seed.meeting(owner).inviting(bob, carol).create();

  /** A meeting of `owner` that bob confirmed by accepting. */
  async function confirmedMeeting(): Promise<SeededMeeting> {
    const meeting = await t.seed.meeting(owner).inviting(bob).create();
    await approve(meeting.id, bob);
    return meeting;
  }

  /** Moves a meeting's start into the past, where no client may put it. */
  const startedHoursAgo = (meetingId: string, hours: number) =>
    t.instance.database.orm.em.fork().nativeUpdate(
      Meeting,
      { id: meetingId },
      {
        startTime: new Date(Date.now() - hours * 3.6e6),
      },
    );

  const cancelled = async (): Promise<SeededMeeting> => {
    const meeting = await meetingWithGuests();
    await change('cancelMeeting', { meetingId: meeting.id }, owner);
    return meeting;
  };

  describe('updateMeeting', () => {
    it('changes only the fields given, null clears, and the answers stay', async () => {
      const { id } = await meetingWithGuests(true);
      const edited = await change(
        'updateMeeting',
        {
          meetingId: id.toUpperCase(),
          title: '  Renamed sync  ',
          locationUrl: 'https://meet.example.com/r',
          appointedBy: carol.id.toUpperCase(),
          type: 'STANDUP',
        },
        owner,
      );
      expect(edited).toMatchObject({
        id,
        title: 'Renamed sync',
        type: 'STANDUP',
        status: 'PENDING',
        location: 'Room 101, HQ',
        locationUrl: 'https://meet.example.com/r',
        appointedBy: carol.id,
        assignedTo: null,
      });
      expect(answers(edited)).toEqual(['owner ACCEPTED', 'bob ACCEPTED', 'carol NEW']);
      const cleared = await change(
        'updateMeeting',
        { meetingId: id, locationUrl: null, appointedBy: null, type: null, assignedTo: bob.id },
        admin,
      );
      expect(cleared).toMatchObject({
        title: 'Renamed sync',
        type: 'ALL_HANDS',
        locationUrl: null,
        appointedBy: null,
        assignedTo: bob.id,
      });
      expect(await readOverRest(id)).toMatchObject({
        title: 'Renamed sync',
        type: 'all-hands',
        location_url: null,
        appointed_by: null,
        assigned_to: bob.id,
        status: 'pending',
      });
    });

    it('refuses guests, hides the meeting from strangers and asks anonymous callers to sign in', async () => {
      const { id } = await meetingWithGuests();
      const input = { meetingId: id, title: 'Taken over' };
      expect(await refusal('updateMeeting', input, bob)).toEqual(
        forbidden('ONLY_MEETING_OWNER_CAN_EDIT'),
      );
      expect(await refusal('updateMeeting', input, stranger)).toEqual(HIDDEN);
      expect(await refusal('updateMeeting', { ...input, meetingId: UNKNOWN_ID }, owner)).toEqual(
        HIDDEN,
      );
      expect(await refusal('updateMeeting', input)).toEqual(ANONYMOUS);
      expect((await read(id)).title).toBe('Weekly sync');
    });

    it('applies the limits of createMeeting, refuses null for required fields and unknown users', async () => {
      const { id } = await meetingWithGuests();
      const bad = await refusal(
        'updateMeeting',
        { meetingId: id, title: 'Short', location: null, locationUrl: 'u'.repeat(101) },
        owner,
      );
      expect(bad?.fields).toEqual({
        'input.title': 'TOO_SHORT',
        'input.location': 'REQUIRED',
        'input.locationUrl': 'TOO_LONG',
      });
      expect(
        (await refusal('updateMeeting', { meetingId: 'nope', assignedTo: 'x' }, owner))?.fields,
      ).toEqual({ 'input.meetingId': 'INVALID_UUID', 'input.assignedTo': 'INVALID_UUID' });
      expect(
        await refusal('updateMeeting', { meetingId: id, assignedTo: UNKNOWN_ID }, owner),
      ).toEqual({ code: 'NOT_FOUND', reason: 'USER_NOT_FOUND' });
      // Users that are not visible are refused as unknown ones, alone or beside a visible one.
      const inactive = await t.seed.user();
      await t.seed.update(inactive, { isActive: false });
      const deleted = await t.seed.user();
      await t.seed.update(deleted, { deletedAt: '2026-01-15' });
      for (const hidden of [inactive, deleted]) {
        expect(
          await refusal('updateMeeting', { meetingId: id, assignedTo: hidden.id }, owner),
        ).toEqual({ code: 'NOT_FOUND', reason: 'USER_NOT_FOUND' });
        expect(
          await refusal(
            'updateMeeting',
            { meetingId: id, appointedBy: carol.id, assignedTo: hidden.id },
            owner,
          ),
        ).toEqual({ code: 'NOT_FOUND', reason: 'USER_NOT_FOUND' });
      }
    });

    it('refuses to edit a closed meeting', async () => {
      const { id } = await cancelled();
      expect(
        await refusal('updateMeeting', { meetingId: id, title: 'Too late now' }, owner),
      ).toEqual(CLOSED);
    });
  });

  describe('rescheduleMeeting', () => {
    it('moves the start, asks every guest again and makes the meeting pending', async () => {
      const { id } = await meetingWithGuests(true);
      await approve(id, carol);
      expect((await read(id)).status).toBe('CONFIRMED');
      const startTime = inHours(72);
      const moved = await change('rescheduleMeeting', { meetingId: id, startTime }, owner);
      expect(moved).toMatchObject({ status: 'PENDING', startTime });
      expect(answers(moved)).toEqual(['owner ACCEPTED', 'bob NEW', 'carol NEW']);
      expect(await readOverRest(id)).toMatchObject({
        status: 'pending',
        start_time: startTime,
        participants: [{ status: 'accepted' }, { status: 'new' }, { status: 'new' }],
      });
      // The same start again (a retry) keeps the answers given since.
      await approve(id, bob);
      const again = await change('rescheduleMeeting', { meetingId: id, startTime }, admin);
      expect(answers(again)?.[1]).toBe('bob ACCEPTED');
    });

    it('refuses a past start, guests, strangers and closed meetings', async () => {
      const { id } = await meetingWithGuests();
      const startTime = inHours(30);
      expect(
        await refusal('rescheduleMeeting', { meetingId: id, startTime: inHours(-1) }, owner),
      ).toMatchObject({ code: 'BAD_USER_INPUT', fields: { 'input.startTime': 'MUST_BE_FUTURE' } });
      expect(await refusal('rescheduleMeeting', { meetingId: id, startTime }, bob)).toEqual(
        forbidden('ONLY_MEETING_OWNER_CAN_RESCHEDULE'),
      );
      expect(await refusal('rescheduleMeeting', { meetingId: id, startTime }, stranger)).toEqual(
        HIDDEN,
      );
      const closed = await cancelled();
      expect(
        await refusal('rescheduleMeeting', { meetingId: closed.id, startTime }, owner),
      ).toEqual(CLOSED);
    });
  });

  describe('cancelMeeting', () => {
    it('cancels a confirmed meeting; cancelling again changes nothing', async () => {
      const { id } = await confirmedMeeting();
      expect((await change('cancelMeeting', { meetingId: id }, owner))?.status).toBe('CANCELLED');
      expect((await change('cancelMeeting', { meetingId: id }, admin))?.status).toBe('CANCELLED');
      expect(await readOverRest(id)).toMatchObject({ status: 'cancelled' });
    });

    it('refuses guests, strangers and completed meetings', async () => {
      const { id } = await confirmedMeeting();
      expect(await refusal('cancelMeeting', { meetingId: id }, bob)).toEqual(
        forbidden('ONLY_MEETING_OWNER_CAN_CANCEL'),
      );
      expect(await refusal('cancelMeeting', { meetingId: id }, stranger)).toEqual(HIDDEN);
      await startedHoursAgo(id, 1);
      await change('completeMeeting', { meetingId: id }, owner);
      expect(await refusal('cancelMeeting', { meetingId: id }, owner)).toEqual(CLOSED);
    });
  });

  describe('completeMeeting', () => {
    it('completes a confirmed meeting that has started; completing again changes nothing', async () => {
      const { id } = await confirmedMeeting();
      await startedHoursAgo(id, 2);
      expect((await change('completeMeeting', { meetingId: id }, admin))?.status).toBe('COMPLETED');
      expect((await change('completeMeeting', { meetingId: id }, owner))?.status).toBe('COMPLETED');
      expect(await readOverRest(id)).toMatchObject({ status: 'completed' });
    });

    it('refuses meetings not started, not confirmed or cancelled, and guests', async () => {
      const confirmed = await confirmedMeeting();
      const complete = (meetingId: string, user: SeededUser = owner) =>
        refusal('completeMeeting', { meetingId }, user);
      expect(await complete(confirmed.id)).toEqual(conflict('MEETING_NOT_STARTED'));
      await startedHoursAgo(confirmed.id, 1);
      expect(await complete(confirmed.id, bob)).toEqual(
        forbidden('ONLY_MEETING_OWNER_CAN_COMPLETE'),
      );
      expect(await complete(confirmed.id, stranger)).toMatchObject({ reason: 'MEETING_NOT_FOUND' });
      const pending = await meetingWithGuests();
      await startedHoursAgo(pending.id, 1);
      expect(await complete(pending.id)).toEqual(conflict('MEETING_NOT_CONFIRMED'));
      const closed = await cancelled();
      await startedHoursAgo(closed.id, 1);
      expect(await complete(closed.id)).toEqual(CLOSED);
    });
  });

  describe('removeParticipant', () => {
    it('takes a guest out; when the other guests all accepted the meeting is confirmed', async () => {
      const { id } = await meetingWithGuests(true);
      const after = await change('removeParticipant', { meetingId: id, userId: carol.id }, owner);
      expect(after?.status).toBe('CONFIRMED');
      expect(answers(after)).toEqual(['owner ACCEPTED', 'bob ACCEPTED']);
      expect(await readOverRest(id)).toMatchObject({
        status: 'confirmed',
        participants: [{ user_id: owner.id }, { user_id: bob.id }],
      });
      expect(await refusal('leaveMeeting', { meetingId: id }, carol)).toEqual(HIDDEN);
    });

    it('refuses the owner as the one removed, non-participants, guests, strangers and closed meetings', async () => {
      const { id } = await meetingWithGuests();
      const remove = (userId: string, user: SeededUser = owner, meetingId = id) =>
        refusal('removeParticipant', { meetingId, userId }, user);
      expect(await remove(owner.id)).toEqual(forbidden('CANNOT_REMOVE_OWNER'));
      expect(await remove(stranger.id)).toMatchObject({ reason: 'PARTICIPANT_NOT_FOUND' });
      expect(await remove(carol.id, bob)).toEqual(
        forbidden('ONLY_MEETING_OWNER_CAN_REMOVE_PARTICIPANTS'),
      );
      expect(await remove(carol.id, stranger)).toMatchObject({ reason: 'MEETING_NOT_FOUND' });
      const kept = await change('removeParticipant', { meetingId: id, userId: bob.id }, admin);
      expect(answers(kept)).toEqual(['owner ACCEPTED', 'carol NEW']);
      expect(kept?.status).toBe('PENDING');
      const closed = await cancelled();
      expect(await remove(bob.id, owner, closed.id)).toMatchObject({ reason: 'MEETING_CLOSED' });
    });
  });

  describe('leaveMeeting', () => {
    it('lets a guest leave, which may confirm the meeting; the leaver no longer sees it', async () => {
      const { id } = await meetingWithGuests(true);
      const left = await t.gql.data<{ leaveMeeting: { meetingId: string; meeting: unknown } }>(
        `mutation ($input: LeaveMeetingInput!) { leaveMeeting(input: $input) { meetingId meeting { id } } }`,
        { input: { meetingId: id } },
        carol.token,
      );
      expect(left.leaveMeeting).toEqual({ meetingId: id, meeting: null });
      expect((await read(id)).status).toBe('CONFIRMED');
      expect(answers(await read(id))).toEqual(['owner ACCEPTED', 'bob ACCEPTED']);
      expect(await refusal('leaveMeeting', { meetingId: id }, carol)).toEqual(HIDDEN);
    });

    it('refuses the owner, non-participants, strangers, anonymous callers and closed meetings', async () => {
      const { id } = await meetingWithGuests();
      const leave = (user?: SeededUser, meetingId = id) =>
        refusal('leaveMeeting', { meetingId }, user);
      expect(await leave(owner)).toEqual(forbidden('OWNER_CANNOT_LEAVE'));
      expect(await leave(admin)).toEqual(forbidden('NOT_A_PARTICIPANT'));
      expect(await leave(stranger)).toEqual(HIDDEN);
      expect(await leave()).toEqual(ANONYMOUS);
      expect(await leave(bob, (await cancelled()).id)).toEqual(CLOSED);
    });

    it('still shows the meeting to an admin guest who left', async () => {
      const { id } = await t.seed.meeting(owner).inviting(admin, bob).create();
      const after = await change('leaveMeeting', { meetingId: id }, admin);
      expect(answers(after)).toEqual(['owner ACCEPTED', 'bob NEW']);
    });
  });

  describe('concurrent changes', () => {
    it('serializes a cancel and an approval racing on one meeting', async () => {
      for (let round = 0; round < 4; round += 1) {
        const { id } = await t.seed.meeting(owner).inviting(bob).create();
        const [cancel, approval] = await Promise.all([
          request('cancelMeeting', { meetingId: id }, owner.token),
          approve(id, bob),
        ]);
        expect(cancel.errors).toBeUndefined();
        const final = await read(id);
        expect(final.status).toBe('CANCELLED');
        // Either the approval came first and stands, or it came second and found the meeting closed.
        const bobAnswer = final.participants.find((p) => p.userId === bob.id)?.status;
        if (approval.errors) {
          expect(approval.errors[0]?.extensions?.reason).toBe('MEETING_CLOSED');
          expect(bobAnswer).toBe('NEW');
        } else {
          expect(bobAnswer).toBe('ACCEPTED');
        }
      }
    });

    it('serializes a reschedule and an approval: confirmed exactly when the guest accepted', async () => {
      for (let round = 0; round < 4; round += 1) {
        const { id } = await t.seed.meeting(owner).inviting(bob).create();
        const [moved, approval] = await Promise.all([
          request('rescheduleMeeting', { meetingId: id, startTime: inHours(50) }, owner.token),
          approve(id, bob),
        ]);
        expect([moved.errors, approval.errors]).toEqual([undefined, undefined]);
        const final = await read(id);
        const bobAnswer = final.participants.find((p) => p.userId === bob.id)?.status;
        expect([final.status, bobAnswer]).toEqual(
          bobAnswer === 'ACCEPTED' ? ['CONFIRMED', 'ACCEPTED'] : ['PENDING', 'NEW'],
        );
      }
    });
  });
});
