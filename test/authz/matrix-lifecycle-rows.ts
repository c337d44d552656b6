import { inHours, type MeetingState } from './authz-fixtures';
import {
  allowed,
  type Capability,
  forMembers,
  lower,
  MEETING_HIDDEN,
  NOT_A_PARTICIPANT,
  othersUnchanged,
  refused,
  rowOf,
  type Scene,
} from './matrix-capability';

/*
 * The authorization matrix's rows for the meeting lifecycle after creation (docs/rest-contract.md
 * §7): GraphQL only, each mutation taking one `input` object. As for every row, the scene's meeting
 * is a fresh pending one of `owner` inviting `participant` (status new); the stranger never sees
 * it.
 */

const forbidden = (code: string) => refused(403, code, 'FORBIDDEN');

/** The meeting of a lifecycle payload, as the rows select it. */
interface PayloadMeeting {
  id: string;
  title: string;
  location: string;
  startTime: string;
  status: string;
  participants: Array<{ userId: string; status: string }>;
}

const PAYLOAD_MEETING =
  'meeting { id title location startTime status participants { userId status } }';

const meetingOf = (root: Record<string, unknown>) => root['meeting'] as PayloadMeeting;

/** The answers (userId, status) of a payload's meeting and of a stored state, comparable. */
const answersOf = (meeting: PayloadMeeting) =>
  meeting.participants.map((p) => [p.userId, lower(p.status)]);
const storedAnswers = (state: MeetingState) => state.participants.map((p) => [p.userId, p.status]);

/** A lifecycle mutation called with `input`, answering the meeting as the change left it. */
const lifecycleCall = (field: string, inputType: string, input: Record<string, unknown>) => ({
  query: `mutation ($input: ${inputType}!) { ${field}(input: $input) { ${PAYLOAD_MEETING} } }`,
  variables: { input },
});

/** The reschedule's new start: far from the seeded start (24 hours ahead), fixed for the run. */
const NEW_START = new Date(inHours(24 * 10)).toISOString();

/** The participant accepts, so the meeting is confirmed before the case runs. */
async function participantAccepts(scene: Scene): Promise<void> {
  await scene.world.t.gql.data(
    'mutation ($meetingId: UUID!) { approveMeeting(input: { meetingId: $meetingId }) { meeting { id } } }',
    { meetingId: scene.meeting.id },
    scene.world.users.participant.token,
  );
}

export const lifecycleCapabilities: Capability[] = [
  {
    action: 'edit the meeting',
    rest: [],
    graphql: { operation: 'mutation', field: 'updateMeeting' },
    restCall: () => ({}),
    graphqlCall: (s) =>
      lifecycleCall('updateMeeting', 'UpdateMeetingInput', {
        meetingId: s.meeting.id,
        title: `Matrix edit ${s.n}`,
        location: 'Room 7, annex',
      }),
    outcomes: forMembers(
      allowed(
        200,
        ({ root, scene, before, after }) => {
          const title = `Matrix edit ${scene.n}`;
          expect(meetingOf(root)).toMatchObject({ id: scene.meeting.id, title });
          expect(after).toMatchObject({ title, location: 'Room 7, annex' });
          // Answers, status and start are kept.
          expect(after.participants).toEqual(before.participants);
          expect(after.status).toBe('pending');
          expect(after.startTime).toBe(before.startTime);
        },
        'keeping the answers',
      ),
      { stranger: MEETING_HIDDEN, participant: forbidden('ONLY_MEETING_OWNER_CAN_EDIT') },
    ),
  },
  {
    action: 'reschedule the confirmed meeting',
    rest: [],
    graphql: { operation: 'mutation', field: 'rescheduleMeeting' },
    restCall: () => ({}),
    graphqlCall: (s) =>
      lifecycleCall('rescheduleMeeting', 'RescheduleMeetingInput', {
        meetingId: s.meeting.id,
        startTime: NEW_START,
      }),
    // Confirmed first, so that the guest's answer going back to new is seen.
    prepare: participantAccepts,
    outcomes: forMembers(
      allowed(
        200,
        ({ root, scene, before, after }) => {
          const { owner, participant } = scene.world.users;
          expect(before.status).toBe('confirmed');
          expect(storedAnswers(before)).toEqual([
            [owner.id, 'accepted'],
            [participant.id, 'accepted'],
          ]);
          expect(after.startTime).toBe(NEW_START);
          expect(after.status).toBe('pending');
          expect(storedAnswers(after)).toEqual([
            [owner.id, 'accepted'],
            [participant.id, 'new'],
          ]);
          expect(new Date(meetingOf(root).startTime).toISOString()).toBe(NEW_START);
          expect(lower(meetingOf(root).status)).toBe('pending');
          expect(answersOf(meetingOf(root))).toEqual(storedAnswers(after));
        },
        'which is pending again and the guest asked again',
      ),
      { stranger: MEETING_HIDDEN, participant: forbidden('ONLY_MEETING_OWNER_CAN_RESCHEDULE') },
    ),
  },
  {
    action: 'cancel the meeting',
    rest: [],
    graphql: { operation: 'mutation', field: 'cancelMeeting' },
    restCall: () => ({}),
    graphqlCall: (s) =>
      lifecycleCall('cancelMeeting', 'CancelMeetingInput', { meetingId: s.meeting.id }),
    outcomes: forMembers(
      allowed(
        200,
        ({ root, before, after }) => {
          expect(after.status).toBe('cancelled');
          expect(after.participants).toEqual(before.participants);
          expect(lower(meetingOf(root).status)).toBe('cancelled');
        },
        'which is cancelled',
      ),
      { stranger: MEETING_HIDDEN, participant: forbidden('ONLY_MEETING_OWNER_CAN_CANCEL') },
    ),
  },
  {
    action: 'complete the pending meeting',
    rest: [],
    graphql: { operation: 'mutation', field: 'completeMeeting' },
    restCall: () => ({}),
    graphqlCall: (s) =>
      lifecycleCall('completeMeeting', 'CompleteMeetingInput', { meetingId: s.meeting.id }),
    // Those who may complete it are told why this one cannot be: it is not confirmed yet.
    outcomes: forMembers(refused(409, 'MEETING_NOT_CONFIRMED', 'CONFLICT'), {
      stranger: MEETING_HIDDEN,
      participant: forbidden('ONLY_MEETING_OWNER_CAN_COMPLETE'),
    }),
  },
  {
    action: 'remove the participant',
    rest: [],
    graphql: { operation: 'mutation', field: 'removeParticipant' },
    restCall: () => ({}),
    graphqlCall: (s) =>
      lifecycleCall('removeParticipant', 'RemoveParticipantInput', {
        meetingId: s.meeting.id,
        userId: s.world.users.participant.id,
      }),
    outcomes: forMembers(
      allowed(
        200,
        ({ root, scene, before, after }) => {
          const { owner, participant } = scene.world.users;
          expect(rowOf(after, participant.id)).toBeUndefined();
          othersUnchanged(before, after, participant.id);
          // Only the owner, who accepted, remains.
          expect(after.status).toBe('confirmed');
          expect(lower(meetingOf(root).status)).toBe('confirmed');
          expect(answersOf(meetingOf(root))).toEqual([[owner.id, 'accepted']]);
        },
        'which confirms it',
      ),
      {
        stranger: MEETING_HIDDEN,
        participant: forbidden('ONLY_MEETING_OWNER_CAN_REMOVE_PARTICIPANTS'),
      },
    ),
  },
  {
    action: 'leave the meeting',
    rest: [],
    graphql: { operation: 'mutation', field: 'leaveMeeting' },
    restCall: () => ({}),
    graphqlCall: (s) => ({
      query: `mutation ($input: LeaveMeetingInput!) {
        leaveMeeting(input: $input) { meetingId meeting { id status } }
      }`,
      variables: { input: { meetingId: s.meeting.id } },
    }),
    // Admins see the meeting but are not in it: there is nothing for them to leave.
    outcomes: forMembers(NOT_A_PARTICIPANT, {
      stranger: MEETING_HIDDEN,
      participant: allowed(
        200,
        ({ root, user, scene, before, after }) => {
          // Having left, the guest no longer sees the meeting.
          expect(root).toEqual({ meetingId: scene.meeting.id, meeting: null });
          expect(rowOf(after, user?.id ?? '')).toBeUndefined();
          othersUnchanged(before, after, user?.id ?? '');
          expect(after.status).toBe('confirmed');
        },
        'which confirms it',
      ),
      owner: forbidden('OWNER_CANNOT_LEAVE'),
    }),
  },
];
