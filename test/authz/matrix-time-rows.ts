import { inHours } from './authz-fixtures';
import { allowed, type Capability, forMembers, MEETING_HIDDEN, refused } from './matrix-capability';

/*
 * The authorization matrix's rows for time (issue 27), GraphQL only. Single occurrences change on
 * a series only: the scene's meeting is a single one, so those who may change it are told it does
 * not repeat, the guest that only the owner may, and the stranger that it does not exist.
 */

const occurrenceRefusals = forMembers(refused(409, 'MEETING_NOT_RECURRING', 'CONFLICT'), {
  stranger: MEETING_HIDDEN,
  participant: refused(403, 'ONLY_MEETING_OWNER_CAN_RESCHEDULE', 'FORBIDDEN'),
});

export const timeCapabilities: Capability[] = [
  {
    action: 'cancel one occurrence',
    rest: [],
    graphql: { operation: 'mutation', field: 'cancelOccurrence' },
    restCall: () => ({}),
    graphqlCall: (s) => ({
      query: `mutation ($input: CancelOccurrenceInput!) {
        cancelOccurrence(input: $input) { meeting { id } occurrence { cancelled } }
      }`,
      variables: { input: { meetingId: s.meeting.id, originalStartTime: inHours(24) } },
    }),
    outcomes: occurrenceRefusals,
  },
  {
    action: 'move one occurrence',
    rest: [],
    graphql: { operation: 'mutation', field: 'moveOccurrence' },
    restCall: () => ({}),
    graphqlCall: (s) => ({
      query: `mutation ($input: MoveOccurrenceInput!) {
        moveOccurrence(input: $input) { meeting { id } occurrence { startTime } }
      }`,
      variables: {
        input: { meetingId: s.meeting.id, originalStartTime: inHours(24), startTime: inHours(30) },
      },
    }),
    outcomes: occurrenceRefusals,
  },
  {
    action: 'see when a user is busy (never why)',
    rest: [],
    graphql: { operation: 'query', field: 'freeBusy' },
    restCall: () => ({}),
    graphqlCall: (s) => ({
      query: `query ($userIds: [UUID!]!, $from: DateTime!, $to: DateTime!) {
        freeBusy(userIds: $userIds, from: $from, to: $to) { userId busy { start end } }
      }`,
      variables: { userIds: [s.target.id], from: inHours(0), to: inHours(24 * 7) },
    }),
    outcomes: forMembers(
      allowed(200, ({ root, scene }) =>
        expect(root).toEqual([{ userId: scene.target.id, busy: expect.any(Array) }]),
      ),
    ),
  },
  {
    action: 'ask for meeting times',
    rest: [],
    graphql: { operation: 'query', field: 'suggestMeetingTimes' },
    restCall: () => ({}),
    graphqlCall: (s) => ({
      query: `query ($input: SuggestMeetingTimesInput!) {
        suggestMeetingTimes(input: $input) { startTime availableUserIds }
      }`,
      variables: {
        input: {
          userIds: [s.target.id],
          durationMinutes: 30,
          from: inHours(24),
          to: inHours(24 * 8),
          weekdays: ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'],
        },
      },
    }),
    outcomes: forMembers(allowed(200, ({ root }) => expect(root).toHaveLength(5))),
  },
];
