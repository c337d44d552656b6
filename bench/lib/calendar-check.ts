import type { Temporal } from '@js-temporal/polyfill';
import {
  address,
  expandWithIcalJs,
  parameterOf,
  readWithIcalJs,
  valueOf,
} from '../../test/calendar/documents';
import type { IcalComponent } from '../../test/calendar/parsers';
import {
  type CalendarFeed,
  type CalendarMeeting,
  occurrenceStart,
  ruleText,
} from './calendar-plan';

// The calendar-feed scenario's check of a whole document, made once per pass (reading it with
// ical.js takes longer than the service takes to write it; the load generator then checks each
// answer by its length and ETag): every planned meeting is there as planned.

/** How each answer is written (PARTSTAT). */
const PARTSTAT = { accept: 'ACCEPTED', decline: 'DECLINED', none: 'NEEDS-ACTION' } as const;

/** STATUS by the service's rule: cancelled once every guest declined, confirmed once all accepted. */
function expectedStatus(meeting: CalendarMeeting): string {
  const answers = [
    ...meeting.guests.map((guest) => guest.answer),
    ...meeting.outsiders.map(() => 'none' as const),
  ];
  if (answers.every((answer) => answer === 'decline')) {
    return 'CANCELLED';
  }
  return answers.every((answer) => answer === 'accept') ? 'CONFIRMED' : 'TENTATIVE';
}

const iso = (date: Date): string => date.toISOString();
const instantOf = (component: IcalComponent, name: string): string => {
  const value = component.getFirstPropertyValue(name) as { toJSDate(): Date } | null;
  return value ? iso(value.toJSDate()) : 'none';
};

/**
 * The first occurrences of a planned series as a calendar must show them: the rule's, less
 * those cancelled, those moved at their new times; sorted, `n` of them.
 */
function plannedOccurrences(
  firstDay: Temporal.PlainDate,
  meeting: CalendarMeeting,
  n: number,
): Array<{ start: string; end: string }> {
  const found: Array<{ start: string; end: string }> = [];
  for (let k = 0; k < n + meeting.cancelled.length; k += 1) {
    if (meeting.cancelled.includes(k)) {
      continue;
    }
    const moved = meeting.moved.find((m) => m.occurrence === k)?.minutes ?? 0;
    const start = occurrenceStart(firstDay, meeting, k).getTime() + moved * 60_000;
    found.push({
      start: iso(new Date(start)),
      end: iso(new Date(start + meeting.durationMinutes * 60_000)),
    });
  }
  return found.sort((a, b) => a.start.localeCompare(b.start)).slice(0, n);
}

/** How one meeting's VEVENTs differ from its plan (empty: they do not). */
function meetingProblems(
  meeting: CalendarMeeting,
  master: IcalComponent,
  overrides: readonly IcalComponent[],
  feed: CalendarFeed,
  firstDay: Temporal.PlainDate,
): string[] {
  const problems: string[] = [];
  const expect = (what: string, got: unknown, want: unknown): void => {
    if (String(got) !== String(want)) {
      problems.push(`${what}: ${String(got)}, planned ${String(want)}`);
    }
  };
  const start = occurrenceStart(firstDay, meeting, 0);
  expect('SUMMARY', valueOf(master, 'summary'), meeting.title);
  expect('DTSTART', instantOf(master, 'dtstart'), iso(start));
  expect(
    'DTEND',
    instantOf(master, 'dtend'),
    iso(new Date(start.getTime() + meeting.durationMinutes * 60_000)),
  );
  expect(
    'DTSTART zone',
    parameterOf(master, 'dtstart', 'tzid') ?? 'UTC',
    meeting.zone === 'UTC' ? 'UTC' : meeting.zone,
  );
  expect(
    'DESCRIPTION',
    master.getFirstPropertyValue('description') ?? 'none',
    meeting.description ?? 'none',
  );
  expect('URL', master.getFirstPropertyValue('url') ?? 'none', meeting.locationUrl ?? 'none');
  expect('STATUS', valueOf(master, 'status'), expectedStatus(meeting));
  const attendees = master.getAllProperties('attendee');
  expect('ATTENDEEs', attendees.length, 1 + meeting.guests.length + meeting.outsiders.length);
  const feedUser = attendees.find(
    (attendee) => address(attendee.getFirstValue()) === `mailto:${feed.emails[0]}`,
  );
  const answer = meeting.guests.find((guest) => guest.member === 0)?.answer ?? 'accept';
  expect("the feed user's PARTSTAT", feedUser?.getParameter('partstat'), PARTSTAT[answer]);
  expect(
    'ORGANIZER',
    address(master.getFirstPropertyValue('organizer')),
    `mailto:${feed.emails[meeting.owner]}`,
  );
  const rule = master.getFirstPropertyValue('rrule');
  if (meeting.series === null) {
    expect('RRULE', rule ?? 'none', 'none');
    expect('overrides', overrides.length, 0);
    return problems;
  }
  // The same parts, in whatever order ical.js writes them.
  const parts = (text: string): string => text.split(';').sort().join(';');
  expect('RRULE', rule ? parts(String(rule)) : 'none', parts(ruleText(meeting.series)));
  const exdates = master
    .getAllProperties('exdate')
    .flatMap((property) => property.getValues() as { toJSDate(): Date }[])
    .map((time) => iso(time.toJSDate()));
  expect(
    'EXDATE',
    exdates.join(' ') || 'none',
    meeting.cancelled.map((k) => iso(occurrenceStart(firstDay, meeting, k))).join(' ') || 'none',
  );
  expect(
    'RECURRENCE-IDs',
    overrides.map((o) => `${instantOf(o, 'recurrence-id')}→${instantOf(o, 'dtstart')}`).join(' ') ||
      'none',
    meeting.moved
      .map((m) => {
        const at = occurrenceStart(firstDay, meeting, m.occurrence);
        return `${iso(at)}→${iso(new Date(at.getTime() + m.minutes * 60_000))}`;
      })
      .join(' ') || 'none',
  );
  const shown = 6;
  expect(
    `its first ${shown} occurrences (ical.js's expansion)`,
    JSON.stringify(expandWithIcalJs(master, overrides).slice(0, shown)),
    JSON.stringify(plannedOccurrences(firstDay, meeting, shown)),
  );
  return problems;
}

/** At most this many problems are told (one wrong field tends to be wrong everywhere). */
const TOLD = 12;

/**
 * How a feed's document differs from the plan (empty: it does not): it must parse, hold one
 * VEVENT per planned meeting (its UID the meeting's id) and one per moved occurrence, and each
 * must show the meeting as planned: title, times and zone, description, URL, status, attendees
 * and the feed user's answer, organizer, rule, cancelled and moved occurrences, and the first
 * occurrences as ical.js expands them.
 */
export function calendarProblems(
  text: string,
  plan: readonly CalendarMeeting[],
  feed: CalendarFeed,
  firstDay: Temporal.PlainDate,
): string[] {
  let events: IcalComponent[];
  let zones: IcalComponent[];
  try {
    ({ events, zones } = readWithIcalJs(text));
  } catch (error) {
    return [`ical.js cannot read it: ${error instanceof Error ? error.message : String(error)}`];
  }
  const problems: string[] = [];
  const masters = new Map<string, IcalComponent>();
  const overrides = new Map<string, IcalComponent[]>();
  for (const event of events) {
    const uid = valueOf(event, 'uid');
    if (event.hasProperty('recurrence-id')) {
      overrides.set(uid, [...(overrides.get(uid) ?? []), event]);
    } else if (masters.has(uid)) {
      problems.push(`UID ${uid} has two VEVENTs without RECURRENCE-ID`);
    } else {
      masters.set(uid, event);
    }
  }
  const moved = plan.reduce((n, meeting) => n + meeting.moved.length, 0);
  if (events.length !== plan.length + moved) {
    problems.push(
      `${events.length} VEVENTs, planned ${plan.length} meetings and ${moved} moved occurrences`,
    );
  }
  const zoneIds = new Set(zones.map((zone) => valueOf(zone, 'tzid')));
  for (const zone of new Set(plan.map((meeting) => meeting.zone))) {
    if (zone !== 'UTC' && !zoneIds.has(zone)) {
      problems.push(`no VTIMEZONE ${zone}`);
    }
  }
  plan.forEach((meeting, i) => {
    const id = feed.meetingIds[i] as string;
    const master = masters.get(id);
    if (!master) {
      problems.push(`meeting ${i + 1} (${meeting.title}, ${id}) is not in the feed`);
      return;
    }
    problems.push(
      ...meetingProblems(meeting, master, overrides.get(id) ?? [], feed, firstDay).map(
        (p) => `meeting ${i + 1} (${meeting.title}): ${p}`,
      ),
    );
  });
  const planned = new Set(feed.meetingIds);
  for (const uid of masters.keys()) {
    if (!planned.has(uid)) {
      problems.push(`the feed holds ${uid}, which is not a planned meeting`);
    }
  }
  return problems.length > TOLD
    ? [...problems.slice(0, TOLD), `… and ${problems.length - TOLD} more`]
    : problems;
}
