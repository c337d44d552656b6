import { benchUsers, withClient } from '../lib/db';
import { graphqlData } from '../lib/http';
import { signAccessToken } from '../lib/jwt';
import type { Server } from '../lib/processes';
import type { ScenarioKey } from '../lib/scenarios';
import {
  BENCH_ROOMS,
  expectedBusy,
  expectedSuggestions,
  instantOf,
  minutesOf,
  type PlannedMeeting,
  planMeetings,
  ROOM_FILTER,
  type Span,
  SUGGEST,
  type SuggestTimes,
  suggestWindow,
  TEAM,
} from '../lib/suggest-plan';
import { meetingApi } from './meeting-api';
import type { BenchContext } from './prepare';
import { log } from './progress';
import { KEYS, TOKENS } from './targets';

// The suggest-times scenario's setup: the team's accounts (SQL, as the writer's), their meetings
// through the service's GraphQL API (run/meeting-api.ts), and a check of the busy time the
// service then reports.

const ACCOUNTS = TEAM.map((member) => member.account);

/**
 * Removes the team's meetings (their participants, occurrence changes and bookings go with them)
 * and suggest-times-room's rooms (on a database whose service has rooms at all).
 */
export async function cleanupSuggestTimes(dbUrl: string): Promise<void> {
  await withClient(dbUrl, async (client) => {
    await client.query(
      `delete from "meetings" where "owner_id" in (select "id" from "users" where "account" = any($1))`,
      [ACCOUNTS],
    );
    await client.query(
      `do $$ begin if to_regclass('resources') is not null then ` +
        `delete from "resources" where "name" like 'Bench room %'; end if; end $$`,
    );
  });
}

const CREATE_ROOM =
  'mutation ($input: CreateResourceInput!) { createResource(input: $input) { resource { id } } }';

/**
 * suggest-times-room's rooms (BENCH_ROOMS), made by the team's lead, who is made an admin for it;
 * answers the filter asked with and the room every suggestion must get: the smallest that holds
 * the whole team.
 */
async function makeRooms(
  ctx: BenchContext,
  service: Server,
  lead: { id: string; token: string },
): Promise<NonNullable<SuggestTimes['room']>> {
  await withClient(ctx.dbUrl, (client) =>
    client.query(`update "users" set "roles" = 'admin' where "id" = $1`, [lead.id]),
  );
  for (const room of BENCH_ROOMS) {
    await graphqlData(
      service.url,
      lead.token,
      CREATE_ROOM,
      { input: room },
      'suggest-times-room setup',
    );
  }
  const fits = Math.max(TEAM.length, ROOM_FILTER.minCapacity);
  const smallest = BENCH_ROOMS.find((room) => room.capacity >= fits);
  if (!smallest) {
    throw new Error('suggest-times-room: no bench room holds the team');
  }
  return { filter: ROOM_FILTER, expected: smallest.name };
}

const FREE_BUSY =
  'query ($ids: [UUID!]!, $from: DateTime!, $to: DateTime!) { freeBusy(userIds: $ids, from: $from, to: $to) { userId busy { start end kind } } }';

type Api = ReturnType<typeof meetingApi>;

/** Makes one planned meeting as its owner, then has each guest answer. */
async function makeMeeting(
  api: Api,
  team: { id: string; token: string }[],
  outsiders: readonly string[],
  meeting: PlannedMeeting,
  start: Date,
): Promise<void> {
  const owner = team[meeting.owner] as { id: string; token: string };
  const member = (index: number) => team[index] as { id: string; token: string };
  const id = await api.create(
    owner.token,
    {
      title: meeting.title,
      type: meeting.guests.length + meeting.outsiders === 1 ? 'ONE_ON_ONE' : 'TEAM_MEETING',
      startTime: start.toISOString(),
      location: 'Room 4.12, Berlin office',
      durationMinutes: meeting.durationMinutes,
      timeZone: SUGGEST.zone,
      recurrence: meeting.recurrence,
    },
    [
      ...meeting.guests.map((guest) => member(guest.member).id),
      ...outsiders.slice(0, meeting.outsiders),
    ],
  );
  for (const guest of meeting.guests) {
    if (guest.answer !== 'none') {
      await api.answer(member(guest.member).token, id, guest.answer);
    }
  }
  const at = new Date(start.getTime() + 7 * 86_400_000);
  if (meeting.secondWeek === 'cancel') {
    await api.cancelOccurrence(owner.token, id, at);
  } else if (meeting.secondWeek) {
    await api.moveOccurrence(
      owner.token,
      id,
      at,
      new Date(at.getTime() + meeting.secondWeek.moveMinutes * 60_000),
    );
  }
}

const range = (values: readonly number[]): string =>
  `${Math.min(...values)}–${Math.max(...values)}`;

/**
 * Makes the team and its two weeks of meetings through `service`, checks that the service's
 * free/busy of the team is what the plan makes of it, and answers the scenario's request with
 * the suggestions it must get. Meetings of an earlier run are removed first.
 */
export async function setUpSuggestTimes(
  ctx: BenchContext,
  service: Server,
  withRooms: boolean,
): Promise<SuggestTimes> {
  const ids = await benchUsers(ctx.dbUrl, TEAM);
  await cleanupSuggestTimes(ctx.dbUrl);
  const api = meetingApi(service, 'suggest-times setup');
  const team = ids.map((id) => ({ id, token: signAccessToken(KEYS, TOKENS, id) }));
  const lead = team[0] as { id: string; token: string };
  const window = suggestWindow(new Date());
  const plan = planMeetings();
  const outsiders = ctx.fixtures.invitees.slice(-10);
  for (const [i, meeting] of plan.entries()) {
    const start = instantOf(window, meeting.day, minutesOf(meeting.time));
    // Another of the team's meetings now and then, from the outsiders' pool in turn.
    await makeMeeting(api, team, outsiders.slice(i % 10), meeting, start);
  }

  const expected = expectedBusy(plan, window);
  const answered = await graphqlData<{
    freeBusy: { userId: string; busy: { start: string; end: string; kind: string }[] | null }[];
  }>(
    service.url,
    lead.token,
    FREE_BUSY,
    { ids, from: window.from, to: window.to },
    'suggest-times setup',
  );
  const shown = (spans: readonly Span[]): string =>
    spans
      .map((s) => `${new Date(s.start).toISOString()}/${new Date(s.end).toISOString()}`)
      .join(' ');
  answered.freeBusy.forEach((entry, member) => {
    // The plan's busy time is its meetings owned or accepted: free/busy's BUSY ranges (open
    // invitations show as TENTATIVE beside them).
    const got = shown(
      (entry.busy ?? [])
        .filter((s) => s.kind === 'BUSY')
        .map((s) => ({ start: Date.parse(s.start), end: Date.parse(s.end) })),
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
    room: withRooms ? await makeRooms(ctx, service, lead) : null,
  };
}

/** Sets the scenario up when it is among `scenarios` (else answers null). */
export const suggestTimesFor = (
  scenarios: readonly ScenarioKey[],
  ctx: BenchContext,
  service: Server,
): Promise<SuggestTimes | null> =>
  scenarios.includes('suggest-times') || scenarios.includes('suggest-times-room')
    ? setUpSuggestTimes(ctx, service, scenarios.includes('suggest-times-room'))
    : Promise.resolve(null);
