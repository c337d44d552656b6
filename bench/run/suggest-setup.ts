import { withClient } from '../lib/db';
import { signAccessToken } from '../lib/jwt';
import type { Server } from '../lib/processes';
import type { ScenarioKey } from '../lib/scenarios';
import {
  expectedBusy,
  expectedSuggestions,
  instantOf,
  minutesOf,
  type PlannedMeeting,
  planMeetings,
  type Span,
  SUGGEST,
  type SuggestTimes,
  suggestWindow,
  TEAM,
} from '../lib/suggest-plan';
import type { BenchContext } from './prepare';
import { log } from './progress';
import { KEYS, TOKENS } from './targets';

// The suggest-times scenario's setup: the team's accounts (SQL, as the writer's), their meetings
// through the service's GraphQL API (createMeeting, approveMeeting, declineMeeting,
// cancelOccurrence, moveOccurrence), and a check of the busy time the service then reports.

const ACCOUNTS = TEAM.map((member) => member.account);

/** The team's users (made once, with demo's password), their ids in TEAM order. */
async function teamIds(dbUrl: string): Promise<string[]> {
  return withClient(dbUrl, async (client) => {
    await client.query(
      `insert into "users" ("id", "created_at", "updated_at", "name", "email", "account",
         "password_hash", "roles", "is_active", "is_verified")
       select gen_random_uuid(), date_trunc('milliseconds', now()), date_trunc('milliseconds', now()),
         t."name", t."account" || '@example.com', t."account", u."password_hash", 'user', true, true
       from unnest($1::text[], $2::text[]) t("account", "name"), "users" u
       where u."account" = 'demo'
       on conflict do nothing`,
      [ACCOUNTS, TEAM.map((member) => member.name)],
    );
    const rows = await client.query<{ account: string; id: string }>(
      `select "account", "id" from "users" where "account" = any($1)`,
      [ACCOUNTS],
    );
    const byAccount = new Map(rows.rows.map((row) => [row.account, row.id]));
    return ACCOUNTS.map((account) => {
      const id = byAccount.get(account);
      if (!id) {
        throw new Error(`suggest-times: the user ${account} could not be made`);
      }
      return id;
    });
  });
}

/** Removes the team's meetings (their participants and occurrence changes go with them). */
export async function cleanupSuggestTimes(dbUrl: string): Promise<void> {
  await withClient(dbUrl, async (client) => {
    await client.query(
      `delete from "meetings" where "owner_id" in (select "id" from "users" where "account" = any($1))`,
      [ACCOUNTS],
    );
  });
}

/** One GraphQL operation as `token`; its data, or an error naming what failed. */
async function graphql<T>(
  service: Server,
  token: string,
  query: string,
  variables: object,
): Promise<T> {
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (!response.ok || body.errors || !body.data) {
    throw new Error(
      `suggest-times setup: ${query.slice(0, 40)}… answered ${response.status} ${JSON.stringify(body).slice(0, 400)}`,
    );
  }
  return body.data;
}

const CREATE =
  'mutation ($input: CreateMeetingInput!) { createMeeting(input: $input) { meeting { id } } }';
const APPROVE =
  'mutation ($id: UUID!) { approveMeeting(input: { meetingId: $id }) { meeting { id } } }';
const DECLINE =
  'mutation ($id: UUID!) { declineMeeting(input: { meetingId: $id }) { meeting { id } } }';
const CANCEL =
  'mutation ($id: UUID!, $at: DateTime!) { cancelOccurrence(input: { meetingId: $id, originalStartTime: $at }) { meeting { id } } }';
const MOVE =
  'mutation ($id: UUID!, $at: DateTime!, $to: DateTime!) { moveOccurrence(input: { meetingId: $id, originalStartTime: $at, startTime: $to }) { meeting { id } } }';
const FREE_BUSY =
  'query ($ids: [UUID!]!, $from: DateTime!, $to: DateTime!) { freeBusy(userIds: $ids, from: $from, to: $to) { userId busy { start end } } }';

/** Makes one planned meeting as its owner, then has each guest answer. */
async function makeMeeting(
  service: Server,
  team: { id: string; token: string }[],
  outsiders: readonly string[],
  meeting: PlannedMeeting,
  start: Date,
): Promise<void> {
  const owner = team[meeting.owner] as { id: string; token: string };
  const member = (index: number) => team[index] as { id: string; token: string };
  const created = await graphql<{ createMeeting: { meeting: { id: string } } }>(
    service,
    owner.token,
    CREATE,
    {
      input: {
        meeting: {
          title: meeting.title,
          type: meeting.guests.length + meeting.outsiders === 1 ? 'ONE_ON_ONE' : 'TEAM_MEETING',
          startTime: start.toISOString(),
          location: 'Room 4.12, Berlin office',
          durationMinutes: meeting.durationMinutes,
          timeZone: SUGGEST.zone,
          recurrence: meeting.recurrence,
        },
        participants: [
          ...meeting.guests.map((guest) => ({ userId: member(guest.member).id })),
          ...outsiders.slice(0, meeting.outsiders).map((userId) => ({ userId })),
        ],
      },
    },
  );
  const id = created.createMeeting.meeting.id;
  for (const guest of meeting.guests) {
    if (guest.answer !== 'none') {
      await graphql(
        service,
        member(guest.member).token,
        guest.answer === 'accept' ? APPROVE : DECLINE,
        {
          id,
        },
      );
    }
  }
  const at = new Date(start.getTime() + 7 * 86_400_000).toISOString();
  if (meeting.secondWeek === 'cancel') {
    await graphql(service, owner.token, CANCEL, { id, at });
  } else if (meeting.secondWeek) {
    const to = new Date(Date.parse(at) + meeting.secondWeek.moveMinutes * 60_000).toISOString();
    await graphql(service, owner.token, MOVE, { id, at, to });
  }
}

const range = (values: readonly number[]): string =>
  `${Math.min(...values)}–${Math.max(...values)}`;

/**
 * Makes the team and its two weeks of meetings through `service`, checks that the service's
 * free/busy of the team is what the plan makes of it, and answers the scenario's request with
 * the suggestions it must get. Meetings of an earlier run are removed first.
 */
export async function setUpSuggestTimes(ctx: BenchContext, service: Server): Promise<SuggestTimes> {
  const ids = await teamIds(ctx.dbUrl);
  await cleanupSuggestTimes(ctx.dbUrl);
  const team = ids.map((id) => ({ id, token: signAccessToken(KEYS, TOKENS, id) }));
  const lead = team[0] as { id: string; token: string };
  const window = suggestWindow(new Date());
  const plan = planMeetings();
  const outsiders = ctx.fixtures.invitees.slice(-10);
  for (const [i, meeting] of plan.entries()) {
    const start = instantOf(window, meeting.day, minutesOf(meeting.time));
    // Another of the team's meetings now and then, from the outsiders' pool in turn.
    await makeMeeting(service, team, outsiders.slice(i % 10), meeting, start);
  }

  const expected = expectedBusy(plan, window);
  const answered = await graphql<{
    freeBusy: { userId: string; busy: { start: string; end: string }[] | null }[];
  }>(service, lead.token, FREE_BUSY, { ids, from: window.from, to: window.to });
  const shown = (spans: readonly Span[]): string =>
    spans
      .map((s) => `${new Date(s.start).toISOString()}/${new Date(s.end).toISOString()}`)
      .join(' ');
  answered.freeBusy.forEach((entry, member) => {
    const got = shown(
      (entry.busy ?? []).map((s) => ({ start: Date.parse(s.start), end: Date.parse(s.end) })),
    );
    const want = shown(expected.busy[member] ?? []);
    if (got !== want) {
      throw new Error(
        `suggest-times: freeBusy of ${TEAM[member]?.account} is not what its meetings make:\n    service: ${got}\n    plan:    ${want}`,
      );
    }
  });

  const series = plan.filter((meeting) => meeting.recurrence !== null).length;
  const summary =
    `${plan.length} meetings of the team (${series} weekly series), made through the GraphQL API; ` +
    `each attendee owns or accepted ${range(expected.occurrences)} occurrences in the window ` +
    `(${range(expected.ofSeries)} of them of series), ${range(expected.busy.map((b) => b.length))} ` +
    'busy ranges once merged';
  log(`suggest-times: ${summary}; freeBusy agrees with the plan.`);
  return {
    token: lead.token,
    input: {
      userIds: ids.slice(1),
      durationMinutes: SUGGEST.durationMinutes,
      from: window.from.toISOString(),
      to: window.to.toISOString(),
      timeZone: SUGGEST.zone,
      workingHours: SUGGEST.workingHours,
      stepMinutes: SUGGEST.stepMinutes,
      minimumAttendeePercentage: SUGGEST.minimumAttendeePercentage,
      first: SUGGEST.first,
    },
    expected: expectedSuggestions(expected.busy, ids, window),
    summary,
  };
}

/** Sets the scenario up when it is among `scenarios` (else answers null). */
export const suggestTimesFor = (
  scenarios: readonly ScenarioKey[],
  ctx: BenchContext,
  service: Server,
): Promise<SuggestTimes | null> =>
  scenarios.includes('suggest-times') ? setUpSuggestTimes(ctx, service) : Promise.resolve(null);
