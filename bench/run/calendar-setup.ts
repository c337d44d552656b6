import { Temporal } from '@js-temporal/polyfill';
import { calendarProblems } from '../lib/calendar-check';
import {
  CALENDAR_OUTSIDERS,
  CALENDAR_USERS,
  type CalendarFeed,
  calendarFirstDay,
  type CalendarMeeting,
  calendarSummary,
  occurrenceStart,
  planCalendar,
  ruleText,
} from '../lib/calendar-plan';
import { benchEmail, benchUsers, withClient } from '../lib/db';
import type { Answer } from '../lib/http';
import { graphqlData } from '../lib/http';
import { signAccessToken } from '../lib/jwt';
import type { Server } from '../lib/processes';
import type { ScenarioKey } from '../lib/scenarios';
import { meetingApi } from './meeting-api';
import type { BenchContext } from './prepare';
import { log } from './progress';
import { KEYS, TOKENS } from './targets';

// The calendar-feed scenario's setup: its users (SQL, as the writer's), the plan's 200 meetings
// made through the service's GraphQL API as their owners and answered by their guests, the feed
// made by createCalendarFeed, and its document read back with ical.js against the plan.

const ACCOUNTS = CALENDAR_USERS.map((user) => user.account);
const WHAT = 'calendar-feed setup';
/** Meetings made at a time. */
const MAKERS = 4;

const CREATE_FEED = 'mutation { createCalendarFeed { feed { url } } }';

/** Removes the users' meetings (participants and occurrence changes go with them) and feed. */
export async function cleanupCalendarFeed(dbUrl: string): Promise<void> {
  await withClient(dbUrl, async (client) => {
    const users = `select "id" from "users" where "account" = any($1)`;
    await client.query(`delete from "meetings" where "owner_id" in (${users})`, [ACCOUNTS]);
    await client.query(`delete from "calendar_feeds" where "user_id" in (${users})`, [ACCOUNTS]);
  });
}

type Api = ReturnType<typeof meetingApi>;
type Member = { id: string; token: string };

/**
 * Makes one planned meeting as its owner: its occurrences cancelled and moved first (a meeting
 * every guest declined is cancelled, and a closed meeting's occurrences stay as they are), then
 * each guest's answer. Answers its id.
 */
async function makeMeeting(
  api: Api,
  users: readonly Member[],
  outsiders: readonly string[],
  meeting: CalendarMeeting,
  firstDay: Temporal.PlainDate,
): Promise<string> {
  const member = (index: number) => users[index] as Member;
  const owner = member(meeting.owner);
  const id = await api.create(
    owner.token,
    {
      title: meeting.title,
      type: meeting.type,
      startTime: occurrenceStart(firstDay, meeting, 0).toISOString(),
      location: `Room ${(meeting.day % 9) + 1}.0${meeting.owner + 1}`,
      locationUrl: meeting.locationUrl,
      durationMinutes: meeting.durationMinutes,
      timeZone: meeting.zone,
      description: meeting.description,
      recurrence: meeting.series ? ruleText(meeting.series) : null,
    },
    [
      ...meeting.guests.map((guest) => member(guest.member).id),
      ...meeting.outsiders.map((o) => outsiders[o] as string),
    ],
  );
  for (const k of meeting.cancelled) {
    await api.cancelOccurrence(owner.token, id, occurrenceStart(firstDay, meeting, k));
  }
  for (const move of meeting.moved) {
    const at = occurrenceStart(firstDay, meeting, move.occurrence);
    await api.moveOccurrence(owner.token, id, at, new Date(at.getTime() + move.minutes * 60_000));
  }
  for (const guest of meeting.guests) {
    if (guest.answer !== 'none') {
      await api.answer(member(guest.member).token, id, guest.answer);
    }
  }
  return id;
}

/** GET of the feed as a calendar app sends it (no token), with the headers given. */
async function getFeed(
  service: Server,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer & { etag: string | null }> {
  const response = await fetch(`${service.url}${path}`, { headers });
  return {
    status: response.status,
    body: await response.text(),
    etag: response.headers.get('etag'),
  };
}

/**
 * The scenario data with the feed as `server` tags it, for the calendar scenarios: two builds may
 * tag the same document differently (a hash of its text, or of its data), so each target's
 * requests carry its own ETag (If-None-Match, and the ETag every answer must have).
 */
export async function taggedBy<C extends { calendar: CalendarFeed | null }>(
  server: Server,
  key: ScenarioKey,
  ctx: C,
): Promise<C> {
  if (!ctx.calendar || (key !== 'calendar-feed' && key !== 'calendar-feed-304')) {
    return ctx;
  }
  const { etag } = await getFeed(server, ctx.calendar.path);
  return etag ? { ...ctx, calendar: { ...ctx.calendar, etag } } : ctx;
}

/** How an answer of the feed differs from what it must be (the plan's document, or a 304). */
export function feedAnswerProblems(
  feed: CalendarFeed,
  answer: Answer,
  unchanged: boolean,
): string[] {
  if (unchanged) {
    return answer.status === 304 && answer.body === ''
      ? []
      : [`If-None-Match of the document's ETag answered ${answer.status}, not 304`];
  }
  if (answer.status !== 200) {
    return [`answered ${answer.status}: ${answer.body.slice(0, 300)}`];
  }
  const firstDay = Temporal.PlainDate.from(feed.firstDay);
  return [
    ...(answer.body.length === feed.length
      ? []
      : [`${answer.body.length} characters, ${feed.length} when it was set up`]),
    ...calendarProblems(answer.body, planCalendar(), feed, firstDay),
  ];
}

/**
 * Makes the feed's users and their planned meetings through `service`, then the feed, and checks
 * its document against the plan (and that its ETag answers 304). Meetings of an earlier run are
 * removed first.
 */
export async function setUpCalendarFeed(ctx: BenchContext, service: Server): Promise<CalendarFeed> {
  const ids = await benchUsers(ctx.dbUrl, CALENDAR_USERS);
  await cleanupCalendarFeed(ctx.dbUrl);
  const users = ids.map((id) => ({ id, token: signAccessToken(KEYS, TOKENS, id) }));
  // Generated users of their own (suggest-times invites the last ten).
  const outsiders = ctx.fixtures.invitees.slice(-40, -40 + CALENDAR_OUTSIDERS);
  const plan = planCalendar();
  const firstDay = calendarFirstDay(new Date());
  const api = meetingApi(service, WHAT);
  const meetingIds: string[] = [];
  let next = 0;
  const maker = async (): Promise<void> => {
    while (next < plan.length) {
      const i = next;
      next += 1;
      meetingIds[i] = await makeMeeting(
        api,
        users,
        outsiders,
        plan[i] as CalendarMeeting,
        firstDay,
      );
    }
  };
  await Promise.all(Array.from({ length: MAKERS }, maker));

  const made = await graphqlData<{ createCalendarFeed: { feed: { url: string } } }>(
    service.url,
    (users[0] as Member).token,
    CREATE_FEED,
    {},
    WHAT,
  );
  const path = new URL(made.createCalendarFeed.feed.url).pathname;
  const first = await getFeed(service, path);
  const feed: CalendarFeed = {
    path,
    etag: first.etag ?? '',
    length: first.body.length,
    firstDay: firstDay.toString(),
    meetingIds,
    emails: ACCOUNTS.map(benchEmail),
    summary: '',
  };
  const problems = [
    ...(first.etag ? [] : ['the feed answered without an ETag']),
    ...feedAnswerProblems(feed, first, false),
    ...feedAnswerProblems(feed, await getFeed(service, path, { 'if-none-match': feed.etag }), true),
  ];
  if (problems.length > 0) {
    throw new Error(
      `calendar-feed: the feed is not what its meetings make:\n  - ${problems.join('\n  - ')}`,
    );
  }
  const vevents = first.body.split('BEGIN:VEVENT').length - 1;
  feed.summary =
    `${calendarSummary(plan)}, made through the GraphQL API; the document is ` +
    `${Math.round(Buffer.byteLength(first.body) / 1024)} KiB, ${vevents} VEVENTs`;
  log(`calendar-feed: ${feed.summary}; ical.js reads it as planned.`);
  return feed;
}

/** Sets the scenario up when either face of it is among `scenarios` (else answers null). */
export const calendarFeedFor = (
  scenarios: readonly ScenarioKey[],
  ctx: BenchContext,
  service: Server,
): Promise<CalendarFeed | null> =>
  scenarios.includes('calendar-feed') || scenarios.includes('calendar-feed-304')
    ? setUpCalendarFeed(ctx, service)
    : Promise.resolve(null);
