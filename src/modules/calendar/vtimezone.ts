import { DAY_MS, MINUTE_MS, offsetMinutes } from '../../platform/shared/time-zone';

/**
 * VTIMEZONE components (RFC 5545 §3.6.5) from Intl's zone data: iCalendar writes a zoned time as
 * wall-clock time with a TZID, and a calendar file should define each TZID it names. ical-generator
 * has no zone data of its own; it takes a generator of these components.
 *
 * A zone's offset changes within the years asked for are found by reading its offset a day apart
 * and, where it differs, narrowing down to the second (zones change at most twice a year nowadays,
 * never twice a day). Changes that recur yearly on the same weekday of a month, at the same
 * wall-clock time, between the same offsets, become one observance with a yearly RRULE
 * (`BYDAY=2SU`, the second Sunday; `-1SU`, the last), as published zone files write them; one
 * still in force in the last year asked for has no UNTIL, so it goes on for a series without end.
 * Any other change is an observance of its own. The first observance is the offset in force when
 * the years begin.
 */

/** The years a definition covers: from the start of `from` (UTC) to the start of `to`. */
export interface ZoneYears {
  from: number;
  to: number;
}

/** One change of a zone's UTC offset. */
interface Transition {
  /** The instant of the change (epoch milliseconds). */
  at: number;
  /** The offsets before and after it, in milliseconds east of UTC. */
  from: number;
  to: number;
  name: string | null;
}

/** Changes of one yearly pattern in consecutive years: one observance with an RRULE. */
interface Run {
  key: string;
  first: Transition;
  last: Transition;
  lastYear: number;
  rule: string;
}

const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'] as const;
/** Enough for any zone's changes over the years a calendar asks about. */
const MAX_TRANSITIONS = 2000;
const CRLF = '\r\n';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** The UTC fields of `ms` as iCalendar's DATE-TIME form (no zone designator). */
function dateTime(ms: number): string {
  const d = new Date(ms);
  return (
    `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T` +
    `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`
  );
}

/** An offset as iCalendar's UTC-OFFSET (`-0500`, `+0530`, seconds only when there are some). */
function utcOffset(ms: number): string {
  const total = Math.round(Math.abs(ms) / 1000);
  const seconds = total % 60;
  const text = `${pad(Math.floor(total / 3600))}${pad(Math.floor(total / 60) % 60)}`;
  return `${ms < 0 ? '-' : '+'}${text}${seconds ? pad(seconds) : ''}`;
}

/** The zone's abbreviation at an instant when Intl has a real one (`EST`, not `GMT-5`). */
function abbreviation(zone: string, ms: number): string | null {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' })
    .formatToParts(new Date(ms))
    .find((part) => part.type === 'timeZoneName')?.value;
  return name && /^[A-Z]{2,5}$/.test(name) ? name : null;
}

/** The offset in force at `ms`, in milliseconds. */
const offsetAt = (zone: string, ms: number): number => offsetMinutes(zone, ms) * MINUTE_MS;

/** The first instant (to the second) in (lo, hi] whose offset is not `lo`'s. */
function changeBetween(zone: string, lo: number, hi: number): number {
  const before = offsetAt(zone, lo);
  let [low, high] = [lo, hi];
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000;
    if (offsetAt(zone, middle) === before) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return high;
}

/** Every change of the zone's offset in [start, end), in order. */
function transitions(zone: string, start: number, end: number): Transition[] {
  const found: Transition[] = [];
  let offset = offsetAt(zone, start);
  for (let day = start; day < end && found.length < MAX_TRANSITIONS; day += DAY_MS) {
    const next = Math.min(day + DAY_MS, end - 1);
    const after = offsetAt(zone, next);
    if (after !== offset) {
      const at = changeBetween(zone, day, next);
      found.push({ at, from: offset, to: after, name: abbreviation(zone, at) });
      offset = after;
    }
  }
  return found;
}

/** DAYLIGHT when the change moves the clocks forward, STANDARD otherwise. */
const kindOf = (t: Pick<Transition, 'from' | 'to'>): 'DAYLIGHT' | 'STANDARD' =>
  t.to > t.from ? 'DAYLIGHT' : 'STANDARD';

/**
 * Where a change falls, as a yearly rule would name it: its month, its weekday counted in the
 * month (`-1` when it is that weekday's last), its wall-clock time before the change. Changes of
 * one key in consecutive years are exactly the occurrences of one yearly rule.
 */
function patternOf(t: Transition): { key: string; rule: string; year: number } {
  const local = new Date(t.at + t.from);
  const year = local.getUTCFullYear();
  const month = local.getUTCMonth() + 1;
  const day = local.getUTCDate();
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const ordinal = day + 7 > daysInMonth ? -1 : Math.ceil(day / 7);
  const rule = `FREQ=YEARLY;BYMONTH=${month};BYDAY=${ordinal}${WEEKDAYS[local.getUTCDay()]}`;
  const time = dateTime(t.at + t.from).slice(9);
  return { key: `${rule} ${time} ${t.from} ${t.to} ${t.name ?? ''}`, rule, year };
}

/** One observance: from `first`, repeating by `rule` (until `until`, epoch ms) if given. */
function observance(
  first: Transition,
  rule: string | null,
  until: number | null,
  kind = kindOf(first),
): string {
  return [
    `BEGIN:${kind}`,
    `DTSTART:${dateTime(first.at + first.from)}`,
    ...(rule ? [`RRULE:${rule}${until === null ? '' : `;UNTIL=${dateTime(until)}Z`}`] : []),
    `TZOFFSETFROM:${utcOffset(first.from)}`,
    `TZOFFSETTO:${utcOffset(first.to)}`,
    ...(first.name ? [`TZNAME:${first.name}`] : []),
    `END:${kind}`,
  ].join(CRLF);
}

/** The observances of a zone's changes: yearly runs as rules, the rest one by one. */
function observances(changes: readonly Transition[], lastYear: number): string[] {
  const open = new Map<string, Run>();
  const done: Array<{ at: number; text: string }> = [];
  const close = (run: Run): void => {
    const repeats = run.first !== run.last;
    // A run still in force in the last year goes on: a series without end needs it.
    const until = run.lastYear === lastYear ? null : run.last.at;
    done.push({
      at: run.first.at,
      text: repeats ? observance(run.first, run.rule, until) : observance(run.first, null, null),
    });
  };
  for (const change of changes) {
    const { key, rule, year } = patternOf(change);
    const run = open.get(key);
    if (run && run.lastYear === year - 1) {
      run.last = change;
      run.lastYear = year;
      continue;
    }
    if (run) {
      close(run);
    }
    open.set(key, { key, first: change, last: change, lastYear: year, rule });
  }
  for (const run of open.values()) {
    close(run);
  }
  return done.sort((a, b) => a.at - b.at).map((o) => o.text);
}

const cache = new Map<string, string>();

/**
 * The VTIMEZONE of an IANA zone over `years`, lines joined by CRLF (without a final one), or null
 * for UTC, which iCalendar writes as UTC times instead. Kept per zone and years (zone data does
 * not change while the process runs).
 */
export function vtimezone(zone: string, years: ZoneYears): string | null {
  if (zone === 'UTC') {
    return null;
  }
  const cacheKey = `${zone} ${years.from} ${years.to}`;
  const known = cache.get(cacheKey);
  if (known !== undefined) {
    return known;
  }
  const start = Date.UTC(years.from, 0, 1);
  const changes = transitions(zone, start, Date.UTC(years.to, 0, 1));
  const offset = offsetAt(zone, start);
  // The offset in force when the years begin: daylight time if the next change moves back.
  const next = changes[0];
  const initial = observance(
    { at: start, from: offset, to: offset, name: abbreviation(zone, start) },
    null,
    null,
    next && next.to < offset ? 'DAYLIGHT' : 'STANDARD',
  );
  const text = [
    'BEGIN:VTIMEZONE',
    `TZID:${zone}`,
    initial,
    ...observances(changes, years.to - 1),
    'END:VTIMEZONE',
  ].join(CRLF);
  if (cache.size < 1000) {
    cache.set(cacheKey, text);
  }
  return text;
}
