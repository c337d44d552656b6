import { Temporal } from '@js-temporal/polyfill';
import { type Answer, RULE_DAYS, seeded } from './suggest-plan';

// The calendar-feed scenario's data: one user's 200 meetings, planned here deterministically (a
// fixed seed), so that the document the feed must answer follows from the plan: the harness
// makes the meetings through the API, then reads the feed back with ical.js against this plan.

/**
 * The feed's user first, then the colleagues who own the meetings it is invited to and are
 * invited to its own. Accounts of the bench's prefix, free of the search scenario's texts.
 */
export const CALENDAR_USERS = [
  { account: 'bench.cal.owner', name: 'Bench Calendar Owner' },
  ...'abcdef'.split('').map((letter) => ({
    account: `bench.cal.${letter}`,
    name: `Bench Calendar Peer ${letter.toUpperCase()}`,
  })),
];

/** How many meetings: in all, owned by the feed's user (the rest it is invited to), series. */
export const CALENDAR_SIZE = { meetings: 200, owned: 80, series: 50 } as const;

/** Generated users invited now and then, who never answer (so their meetings stay pending). */
export const CALENDAR_OUTSIDERS = 12;

/** A series' rule: WEEKLY on some weekdays (0 = Monday), or DAILY; COUNT or no end. */
export interface SeriesRule {
  freq: 'WEEKLY' | 'DAILY';
  interval: number;
  /** WEEKLY: the weekdays it falls on, the start's among them. */
  weekdays: number[];
  count: number | null;
}

/** One meeting of the plan, in wall-clock time of its zone. */
export interface CalendarMeeting {
  title: string;
  /** The owner's index in CALENDAR_USERS (0: the feed's user). */
  owner: number;
  /** Days after the plan's first day (a Monday). */
  day: number;
  /** Start, HH:MM. */
  time: string;
  durationMinutes: number;
  zone: string;
  type: 'ONE_ON_ONE' | 'TEAM_MEETING' | 'STANDUP' | 'PROJECT_MEETING';
  description: string | null;
  locationUrl: string | null;
  series: SeriesRule | null;
  /** Invited users of CALENDAR_USERS and how they answer. */
  guests: { member: number; answer: Answer }[];
  /** Indexes of the outsiders invited (they never answer). */
  outsiders: number[];
  /** Occurrences of a series (0: the first) cancelled, and moved later by some minutes. */
  cancelled: number[];
  moved: { occurrence: number; minutes: number }[];
}

const ZONES = [
  'Europe/Berlin',
  'Europe/Berlin',
  'America/New_York',
  'UTC',
  'Asia/Tokyo',
  'Europe/London',
  'Australia/Sydney',
];
const TOPICS = [
  'Roadmap review',
  'Customer call',
  'Hiring debrief',
  'Budget check',
  'Retro prep',
  'Design review',
  'Incident follow-up',
  'Vendor sync',
];
/** Descriptions with what iCalendar must escape: commas, semicolons, a line break. */
const DESCRIPTIONS = [
  'Agenda: status, risks; next steps.\nNotes go in the shared document.',
  'Bring the numbers for Q3; questions to the organiser beforehand, please.',
  null,
  null,
];

/** The RRULE of a series, as createMeeting takes it. */
export function ruleText(rule: SeriesRule): string {
  const parts = [`FREQ=${rule.freq}`];
  if (rule.interval > 1) {
    parts.push(`INTERVAL=${rule.interval}`);
  }
  if (rule.freq === 'WEEKLY') {
    parts.push(`BYDAY=${rule.weekdays.map((d) => RULE_DAYS[d]).join(',')}`);
  }
  if (rule.count !== null) {
    parts.push(`COUNT=${rule.count}`);
  }
  return parts.join(';');
}

/** The series' rule for a start on `weekday` (0 = Monday, a weekday), by turns. */
function ruleFor(turn: number, weekday: number): SeriesRule {
  switch (turn % 5) {
    case 0:
      return { freq: 'WEEKLY', interval: 1, weekdays: [weekday], count: null };
    case 1: {
      // Two days a week, the start's the first of them in its week.
      const other = weekday <= 2 ? weekday + 2 : weekday - 2;
      return {
        freq: 'WEEKLY',
        interval: 1,
        weekdays: [weekday, other].sort((a, b) => a - b),
        count: 16,
      };
    }
    case 2:
      return { freq: 'DAILY', interval: 1, weekdays: [], count: 10 };
    case 3:
      return { freq: 'WEEKLY', interval: 2, weekdays: [weekday], count: null };
    default:
      return { freq: 'WEEKLY', interval: 1, weekdays: [weekday], count: 12 };
  }
}

/**
 * The plan: the feed's user owns the first CALENDAR_SIZE.owned meetings (inviting one to four
 * colleagues, sometimes an outsider) and is invited to the rest by a colleague (accepting most,
 * declining some, leaving some unanswered). Every fourth meeting is a series: weekly, twice a
 * week, daily for ten days, fortnightly, or weekly twelve times; a third of them have their
 * second occurrence cancelled and a fifth their third moved later.
 */
export function planCalendar(): CalendarMeeting[] {
  const random = seeded(29);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const peers = CALENDAR_USERS.map((_, i) => i).slice(1);
  const meetings: CalendarMeeting[] = [];
  let seriesMade = 0;
  for (let i = 0; i < CALENDAR_SIZE.meetings; i += 1) {
    const ownedByFeedUser = i < CALENDAR_SIZE.owned;
    const owner = ownedByFeedUser ? 0 : (peers[i % peers.length] as number);
    const isSeries = i % 4 === 0;
    // Series begin in the first two weeks, single meetings in the first eight; weekdays only.
    const week = Math.floor(random() * (isSeries ? 2 : 8));
    const day = week * 7 + Math.floor(random() * 5);
    const others = peers.filter((p) => p !== owner);
    const guests: CalendarMeeting['guests'] = [];
    if (!ownedByFeedUser) {
      const r = random();
      guests.push({ member: 0, answer: r < 0.6 ? 'accept' : r < 0.75 ? 'decline' : 'none' });
    }
    for (let n = (ownedByFeedUser ? 1 : 0) + Math.floor(random() * 3); n > 0; n -= 1) {
      const member = others.splice(Math.floor(random() * others.length), 1)[0] as number;
      const r = random();
      guests.push({ member, answer: r < 0.75 ? 'accept' : r < 0.85 ? 'decline' : 'none' });
    }
    const outsiders = random() < 0.25 ? [i % CALENDAR_OUTSIDERS] : [];
    const turn = seriesMade;
    const series = isSeries ? ruleFor(turn, day % 7) : null;
    if (isSeries) {
      seriesMade += 1;
    }
    const count = guests.length + outsiders.length;
    meetings.push({
      title: `${series?.freq === 'DAILY' ? 'Daily stand-up' : pick(TOPICS)} ${i + 1}`,
      owner,
      day,
      time: `${String(8 + Math.floor(random() * 9)).padStart(2, '0')}:${pick(['00', '15', '30', '45'])}`,
      durationMinutes: series?.freq === 'DAILY' ? 15 : pick([30, 30, 45, 60, 60, 90]),
      zone: pick(ZONES),
      type:
        series?.freq === 'DAILY'
          ? 'STANDUP'
          : count === 1
            ? 'ONE_ON_ONE'
            : pick(['TEAM_MEETING', 'PROJECT_MEETING'] as const),
      description: pick(DESCRIPTIONS),
      locationUrl: random() < 0.4 ? `https://meet.example.com/bench-${i + 1}` : null,
      series,
      guests,
      outsiders,
      cancelled: isSeries && turn % 3 === 0 ? [1] : [],
      moved: isSeries && turn % 5 === 1 ? [{ occurrence: 2, minutes: 90 }] : [],
    });
  }
  return meetings;
}

/** The plan's first day: the Monday at least two days ahead (UTC), so every start is future. */
export function calendarFirstDay(now: Date): Temporal.PlainDate {
  const soonest = Temporal.Instant.fromEpochMilliseconds(now.getTime() + 2 * 86_400_000)
    .toZonedDateTimeISO('UTC')
    .toPlainDate();
  return soonest.add({ days: (8 - soonest.dayOfWeek) % 7 });
}

/** The days (after the plan's first) of a meeting's first `n` occurrences. */
export function occurrenceDays(meeting: CalendarMeeting, n: number): number[] {
  const rule = meeting.series;
  if (rule === null) {
    return [meeting.day];
  }
  const days: number[] = [];
  const weekStart = meeting.day - (meeting.day % 7);
  for (let day = meeting.day; days.length < n; day += 1) {
    const falls =
      rule.freq === 'DAILY'
        ? (day - meeting.day) % rule.interval === 0
        : rule.weekdays.includes(day % 7) &&
          Math.floor((day - weekStart) / 7) % rule.interval === 0;
    if (falls) {
      days.push(day);
    }
  }
  return days;
}

/** The instant of occurrence `k` (0: the start) of a meeting, as planned (not moved). */
export function occurrenceStart(
  firstDay: Temporal.PlainDate,
  meeting: CalendarMeeting,
  k: number,
): Date {
  const day = occurrenceDays(meeting, k + 1)[k] as number;
  const zoned = firstDay.add({ days: day }).toZonedDateTime({
    timeZone: meeting.zone,
    plainTime: Temporal.PlainTime.from(meeting.time),
  });
  return new Date(zoned.epochMilliseconds);
}

/** What the setup made of the plan, for the scenario's requests and its check. */
export interface CalendarFeed {
  /** The feed's path (its secret in it), as the service answered createCalendarFeed. */
  path: string;
  /** The document's ETag and length (characters) once it was checked. */
  etag: string;
  length: number;
  /** The plan's first day (ISO date) and the ids of its meetings in plan order. */
  firstDay: string;
  meetingIds: string[];
  /** E-mail addresses of CALENDAR_USERS (the attendees' addresses). */
  emails: string[];
  /** The data's shape, for the report. */
  summary: string;
}

const count = <T>(items: readonly T[], test: (item: T) => boolean): number =>
  items.filter(test).length;

/** The plan's shape in a sentence. */
export function calendarSummary(plan: readonly CalendarMeeting[]): string {
  const invited = plan.filter((m) => m.owner !== 0);
  const answer = (a: Answer) =>
    count(invited, (m) => m.guests.some((g) => g.member === 0 && g.answer === a));
  const series = plan.filter((m) => m.series !== null);
  const zones = new Set(plan.map((m) => m.zone)).size;
  return (
    `${plan.length} meetings of bench.cal.owner (${plan.length - invited.length} its own, ` +
    `invited to ${invited.length}: ${answer('accept')} accepted, ${answer('decline')} declined, ` +
    `${answer('none')} unanswered), ${series.length} of them series ` +
    `(${count(series, (m) => m.series?.freq === 'DAILY')} daily, ` +
    `${count(series, (m) => m.series?.interval === 2)} fortnightly, the rest weekly), ` +
    `${count(series, (m) => m.cancelled.length > 0)} with an occurrence cancelled and ` +
    `${count(series, (m) => m.moved.length > 0)} with one moved; ${zones} time zones`
  );
}
