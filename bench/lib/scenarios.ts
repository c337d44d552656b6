import type { CalendarFeed } from './calendar-plan';
import type { Fixtures } from './db';
import type { PlannedRequest } from './protocol';
import type { SuggestTimes } from './suggest-plan';

/**
 * The scenarios: most are requests sent by autocannon, to the service and the baseline alike
 * (unless `noBaseline`); those with `pass` drive events through a service of their own and time
 * their delivery (run/webhook-pass.ts, run/resume-pass.ts).
 */

export type ScenarioKey =
  | 'meeting-rest'
  | 'meeting-graphql'
  | 'search'
  | 'requests'
  | 'following'
  | 'my-meetings'
  | 'writes'
  | 'suggest-times'
  | 'suggest-times-room'
  | 'calendar-feed'
  | 'calendar-feed-304'
  | 'webhook-deliveries'
  | 'resume';

/** The scenarios measured by a pass of their own rather than by autocannon. */
export type PassKey = 'webhook-deliveries' | 'resume';

/** The scenarios autocannon measures. */
export type LoadKey = Exclude<ScenarioKey, PassKey>;

/** The scenarios whose requests autocannon repeats as they are (not the writes' add-approve). */
export type ReadKey = Exclude<LoadKey, 'writes'>;

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
  /**
   * For a scenario measured by a pass of its own: what its columns of the report's tables mean
   * (the rate in the req/s column, the latency in the p50/p99 columns, what CPU and statements
   * are per).
   */
  pass?: { rate: string; latency: string; per: string };
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
  {
    key: 'suggest-times-room',
    title: '8b. GraphQL suggestMeetingTimes with a room',
    what:
      'the same request asking for a room (room: { minCapacity: 8 }) among 30 of 4 to 33 seats, ' +
      'each suggestion with the smallest free one that holds the 10 attendees',
    noBaseline:
      'as suggestMeetingTimes: its answer checked against the plan, each slot with the room it ' +
      'must get',
  },
  {
    key: 'calendar-feed',
    title: '9. Calendar feed (200 meetings)',
    what:
      'GET /calendar/cal_….ics, the feed of bench.cal.owner: 200 meetings it owns or was invited ' +
      'to, 50 of them series (weekly, fortnightly, daily; some with an occurrence cancelled or ' +
      'moved), in six zones, made through the API before the scenario',
    noBaseline:
      'the baseline writes no iCalendar: the service alone, the document read once with ' +
      'ical.js against the plan, then every answer checked by its length and ETag',
  },
  {
    key: 'calendar-feed-304',
    title: '10. Calendar feed, If-None-Match (304)',
    what: "the same GET with If-None-Match: the document's ETag, answered 304 without a body",
    noBaseline: 'as the calendar feed: every answer checked to be a 304 with the same ETag',
  },
  {
    key: 'webhook-deliveries',
    title: '11. Webhook deliveries (4 endpoints)',
    what:
      'meeting changes through REST (add participant, approve), each POSTed to 4 endpoints of 3 ' +
      'users at an HTTPS receiver on 127.0.0.1; every delivery verified (Standard Webhooks ' +
      'signature), counted once by webhook-id',
    noBaseline: 'the baseline sends no webhooks: the service alone',
    pass: {
      rate: 'deliveries/s while draining a burst of writes',
      latency: "from the write's response to the receipt, at half that rate",
      per: 'per delivery (the writes that made them included)',
    },
  },
  {
    key: 'resume',
    title: '12. Resume: 1,000 subscribers, listener cut',
    what:
      "1,000 myMeetingEvents subscribers over WebSocket; the service's listener connection is " +
      'terminated and meetings are changed at once; time until every subscriber has every event',
    noBaseline: 'the baseline has no subscriptions: the service alone',
    pass: {
      rate: 'events delivered per second until all caught up',
      latency: 'from the listener being cut to each subscriber having all its events',
      per: 'per event delivered',
    },
  },
];

/**
 * The reads that the baseline answers and that need no data made for them: the seeded database
 * serves them as it is (and so does a copy of it).
 */
export const SEEDED_READS = [
  'meeting-rest',
  'meeting-graphql',
  'search',
  'requests',
  'following',
  'my-meetings',
] as const satisfies readonly ReadKey[];

/** The scenarios of --replica (run/replica-pass.ts): the seeded reads, on a copy of the data. */
export const REPLICA_SCENARIOS = SEEDED_READS;

/** A scenario of --replica. */
export type ReplicaKey = (typeof REPLICA_SCENARIOS)[number];

/** Whether --replica runs the scenario. */
export const isReplicaScenario = (key: ScenarioKey): key is ReplicaKey =>
  (REPLICA_SCENARIOS as readonly ScenarioKey[]).includes(key);

/** The scenario's description. */
export const scenarioInfo = (key: ScenarioKey): ScenarioInfo =>
  SCENARIOS.find((s) => s.key === key) as ScenarioInfo;

/** Whether the baseline answers the scenario (else it is measured on the service alone). */
export const hasBaseline = (key: ScenarioKey): boolean =>
  scenarioInfo(key).noBaseline === undefined;

/** Whether a pass of its own measures the scenario (not autocannon). */
export const isPass = (key: ScenarioKey): key is PassKey => scenarioInfo(key).pass !== undefined;

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
export const GRAPHQL_SUGGEST_TIMES_ROOM =
  'query BenchSuggestTimesRoom($input: SuggestMeetingTimesInput!) { suggestMeetingTimes(input: $input) ' +
  '{ startTime endTime availableUserIds unavailableUserIds room { name capacity } } }';

/** Access tokens of the callers (issued by the service's login). */
export interface Callers {
  demo: string;
  inbox: string;
  busy: string;
}

/** The data made for the scenarios that need their own, once a run (null: not made). */
export interface MadeData {
  suggest: SuggestTimes | null;
  calendar: CalendarFeed | null;
}

/** What the scenarios' requests are made of: ids, callers, and the data made for them. */
export interface ScenarioData extends MadeData {
  fixtures: Fixtures;
  callers: Callers;
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
  key: ReadKey,
  { fixtures, callers, suggest, calendar }: ScenarioData,
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
    case 'suggest-times-room':
      if (!suggest?.room) {
        throw new Error('suggest-times-room: its rooms were not made (run/suggest-setup.ts)');
      }
      return [
        graphql(suggest.token, 'BenchSuggestTimesRoom', GRAPHQL_SUGGEST_TIMES_ROOM, {
          input: { ...suggest.input, room: suggest.room.filter },
        }),
      ];
    case 'calendar-feed':
    case 'calendar-feed-304': {
      if (!calendar) {
        throw new Error(`${key}: its meetings were not made (run/calendar-setup.ts)`);
      }
      const unchanged = key === 'calendar-feed-304';
      // A calendar app sends no token: the address is the credential.
      return [
        {
          method: 'GET',
          path: calendar.path,
          headers: { ...alwaysSent, ...(unchanged ? { 'if-none-match': calendar.etag } : {}) },
          expect: unchanged
            ? { status: 304, etag: calendar.etag, length: 0 }
            : {
                status: 200,
                etag: calendar.etag,
                // A compressed body is not the document's length.
                ...(alwaysSent['accept-encoding'] ? {} : { length: calendar.length }),
              },
        },
      ];
    }
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
