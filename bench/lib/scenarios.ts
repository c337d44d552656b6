import type { Fixtures } from './db';
import type { PlannedRequest } from './protocol';
import type { SuggestTimes } from './suggest-plan';

/** The scenarios, each run against the service and the baseline alike (unless `noBaseline`). */

export type ScenarioKey =
  | 'meeting-rest'
  | 'meeting-graphql'
  | 'search'
  | 'requests'
  | 'following'
  | 'my-meetings'
  | 'writes'
  | 'suggest-times';

export interface ScenarioInfo {
  key: ScenarioKey;
  title: string;
  what: string;
  /**
   * Why the baseline has no counterpart, for a scenario measured on the service alone (absolute
   * numbers, no ratio; its answer is checked against what it must be instead). Absent: the
   * baseline answers the same bytes.
   */
  noBaseline?: string;
}

export const SCENARIOS: readonly ScenarioInfo[] = [
  {
    key: 'meeting-rest',
    title: '1. REST meeting (50 participants)',
    what: 'GET /api/v1/meeting/{id} of the 50-participant meeting, as its owner demo',
  },
  {
    key: 'meeting-graphql',
    title: '2. GraphQL meeting (50 participants)',
    what: 'POST /graphql meeting(meetingId) with participants and users (the REST record fields)',
  },
  {
    key: 'search',
    title: '3. REST user search',
    what: 'GET /api/v1/user/search?q=… over all users, rotating the queries below, as demo',
  },
  {
    key: 'requests',
    title: '4. REST meeting requests (200)',
    what: 'GET /api/v1/meeting/requests as inbox.user (200 pending invitations; first page of 100)',
  },
  {
    key: 'following',
    title: '5. REST following',
    what: 'GET /api/v1/follow/following as demo (20 follows, each with the user record)',
  },
  {
    key: 'my-meetings',
    title: '6. GraphQL myMeetings(limit: 20)',
    what: 'POST /graphql myMeetings(limit: 20) with participants and users, as the user with the most meetings',
  },
  {
    key: 'writes',
    title: '7. REST add participant + approve',
    what: 'POST …/participants/add (owner adds a user to a fresh meeting), then POST …/approve (that user accepts)',
  },
  {
    key: 'suggest-times',
    title: '8. GraphQL suggestMeetingTimes',
    what:
      'POST /graphql suggestMeetingTimes as bench.team.lead for itself and 9 colleagues: 14 days, ' +
      '09:00–17:00 Europe/Berlin, 30 minutes, every 15, ≥ 80% free, first 5; their meetings ' +
      '(weekly series among them) are made through the API before the scenario',
    noBaseline:
      'the baseline has no recurrence expansion or time-zone slot search: the service alone, ' +
      'its answer checked against the one its planned meetings make',
  },
];

/** The scenario's description. */
export const scenarioInfo = (key: ScenarioKey): ScenarioInfo =>
  SCENARIOS.find((s) => s.key === key) as ScenarioInfo;

/** Whether the baseline answers the scenario (else it is measured on the service alone). */
export const hasBaseline = (key: ScenarioKey): boolean =>
  scenarioInfo(key).noBaseline === undefined;

/** Search texts, rotated: common and rarer 2–3 letter substrings. */
export const SEARCH_QUERIES = ['an', 'li', 'mar', 'son', 'kim'] as const;

const USER_FIELDS =
  'name email account id roles isActive isVerified isSuperuser bio dob phone avatarPhotoId deletedAt createdAt updatedAt';
const MEETING_FIELDS =
  'title ownerId startTime location id appointedBy assignedTo type status locationUrl createdAt updatedAt ' +
  `participants { meetingId userId id user { ${USER_FIELDS} } status createdAt updatedAt }`;

export const GRAPHQL_MEETING = `query BenchMeeting($meetingId: UUID!) { meeting(meetingId: $meetingId) { ${MEETING_FIELDS} } }`;
export const GRAPHQL_MY_MEETINGS = `query BenchMyMeetings($limit: Int) { myMeetings(limit: $limit) { ${MEETING_FIELDS} } }`;
export const GRAPHQL_SUGGEST_TIMES =
  'query BenchSuggestTimes($input: SuggestMeetingTimesInput!) { suggestMeetingTimes(input: $input) ' +
  '{ startTime endTime availableUserIds unavailableUserIds } }';

/** Access tokens of the callers (issued by the service's login). */
export interface Callers {
  demo: string;
  inbox: string;
  busy: string;
}

/** What the scenarios' requests are made of: ids, callers, and suggest-times' setup if made. */
export interface ScenarioData {
  fixtures: Fixtures;
  callers: Callers;
  suggest: SuggestTimes | null;
}

/** Headers every planned request carries besides its own (set once from the options). */
const alwaysSent: Record<string, string> = {};

/** Adds `accept-encoding` to every request planned from now on (null: none). */
export function sendAcceptEncoding(value: string | null): void {
  if (value !== null) {
    alwaysSent['accept-encoding'] = value;
  }
}

const bearer = (token: string): Record<string, string> => ({
  ...alwaysSent,
  authorization: `Bearer ${token}`,
});

function graphql(
  token: string,
  operationName: string,
  query: string,
  variables: object,
): PlannedRequest {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ operationName, query, variables }),
  };
}

/** The requests of a read scenario (the same for the service and the baseline). */
export function readRequests(
  key: Exclude<ScenarioKey, 'writes'>,
  { fixtures, callers, suggest }: ScenarioData,
): PlannedRequest[] {
  switch (key) {
    case 'meeting-rest':
      return [
        {
          method: 'GET',
          path: `/api/v1/meeting/${fixtures.bigMeetingId}`,
          headers: bearer(callers.demo),
        },
      ];
    case 'meeting-graphql':
      return [
        graphql(callers.demo, 'BenchMeeting', GRAPHQL_MEETING, {
          meetingId: fixtures.bigMeetingId,
        }),
      ];
    case 'search':
      return SEARCH_QUERIES.map((q) => ({
        method: 'GET',
        path: `/api/v1/user/search?q=${encodeURIComponent(q)}`,
        headers: bearer(callers.demo),
      }));
    case 'requests':
      return [{ method: 'GET', path: '/api/v1/meeting/requests', headers: bearer(callers.inbox) }];
    case 'following':
      return [{ method: 'GET', path: '/api/v1/follow/following', headers: bearer(callers.demo) }];
    case 'my-meetings':
      return [graphql(callers.busy, 'BenchMyMeetings', GRAPHQL_MY_MEETINGS, { limit: 20 })];
    case 'suggest-times':
      if (!suggest) {
        throw new Error('suggest-times: its meetings were not made (run/suggest-setup.ts)');
      }
      return [
        graphql(suggest.token, 'BenchSuggestTimes', GRAPHQL_SUGGEST_TIMES, {
          input: suggest.input,
        }),
      ];
  }
}

export const addRequest = (
  ownerToken: string,
  meetingId: string,
  userId: string,
): PlannedRequest => ({
  method: 'POST',
  path: `/api/v1/meeting/${meetingId}/participants/add`,
  headers: { ...bearer(ownerToken), 'content-type': 'application/json' },
  body: JSON.stringify({ user_id: userId }),
});

export const approveRequest = (token: string, meetingId: string): PlannedRequest => ({
  method: 'POST',
  path: `/api/v1/meeting/${meetingId}/approve`,
  headers: bearer(token),
});
