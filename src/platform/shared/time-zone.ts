/*
 * Wall-clock time in IANA zones, on Intl's zone data (native, as fast as Date). Temporal (a
 * polyfill until Node ships it) would do the same at 60–100 µs a conversion (BigInt emulation,
 * measured by the suggest-times bench), 14 MB of memory besides: suggestions convert hundreds of
 * times a request, so these few functions are written out, and tested across daylight saving.
 */

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/**
 * The zone of a meeting or a user that names none, and of every meeting and user made through
 * REST.
 */
export const DEFAULT_TIME_ZONE = 'UTC';

/** The longest zone name stored (the zone database's longest is 32 characters). */
export const TIME_ZONE_MAX_LENGTH = 64;

/** An IANA zone name (`Europe/Berlin`, `UTC`), not a bare offset such as `+01:00`. */
const ZONE_NAME = new RegExp(`^[A-Za-z][A-Za-z0-9_+/-]{0,${TIME_ZONE_MAX_LENGTH - 1}}$`);

const known = new Map<string, string | null>();

/**
 * The IANA time zone a name denotes, spelled as the zone database spells it (`europe/berlin` is
 * `Europe/Berlin`), or null for a name it does not know.
 */
export function canonicalTimeZone(name: string): string | null {
  let zone = known.get(name);
  if (zone === undefined) {
    try {
      zone = ZONE_NAME.test(name)
        ? new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
        : null;
    } catch {
      zone = null;
    }
    if (known.size < 1000) {
      known.set(name, zone);
    }
  }
  return zone;
}

/**
 * The zone a validated input names, as stored: its canonical spelling, or the default for none
 * (validation lets only known zones through).
 */
export const storedTimeZone = (zone: string | null | undefined): string =>
  (zone && canonicalTimeZone(zone)) || DEFAULT_TIME_ZONE;

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** A zone's offset at an instant as Intl reads it (formatToParts: a few µs each). */
function intlOffsetMinutes(zone: string, instant: number): number {
  let format = offsetFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    offsetFormats.set(zone, format);
  }
  const name = format.formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value;
  // `GMT` for UTC itself, else `GMT+01:00` or `GMT-03:30`.
  const match = /([+-])(\d{2}):(\d{2})/.exec(name ?? '');
  if (!match) {
    return 0;
  }
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

const HOUR_MS = 3_600_000;
/** Enough hours for the zones and times a process works with; past it, a zone starts over. */
const MAX_HOURS_PER_ZONE = 50_000;
/** Per zone, the offset of each UTC hour it holds throughout (an hour with a change: absent). */
const hourOffsets = new Map<string, Map<number, number>>();

/**
 * A zone's offset from UTC at an instant, in minutes (`+60` for Berlin in winter). Kept per zone
 * and UTC hour: an hour that begins and ends with the same offset has it throughout, since no
 * zone changes its offset twice within an hour; an hour with a change (whose instant need not be
 * on the hour: Lord Howe's, in 30-minute steps) is read from Intl at the instant each time.
 */
export function offsetMinutes(zone: string, instant: number): number {
  const hour = Math.floor(instant / HOUR_MS);
  let hours = hourOffsets.get(zone);
  const known = hours?.get(hour);
  if (known !== undefined) {
    return known;
  }
  const start = intlOffsetMinutes(zone, hour * HOUR_MS);
  if (start !== intlOffsetMinutes(zone, (hour + 1) * HOUR_MS - 1)) {
    return intlOffsetMinutes(zone, instant);
  }
  if (!hours || hours.size >= MAX_HOURS_PER_ZONE) {
    hours = new Map();
    hourOffsets.set(zone, hours);
  }
  hours.set(hour, start);
  return start;
}

/** A calendar day, as the zone's wall clock shows it. */
export interface LocalDay {
  year: number;
  /** 1–12. */
  month: number;
  day: number;
}

/** The day an instant falls on in a zone. */
export function localDayOf(zone: string, instant: number): LocalDay {
  const local = new Date(instant + offsetMinutes(zone, instant) * MINUTE_MS);
  return { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
}

/** Milliseconds of a local day's midnight, as if the zone were UTC (for day arithmetic). */
export const dayNumber = ({ year, month, day }: LocalDay): number => Date.UTC(year, month - 1, day);

/** The day after. */
export function nextDay(day: LocalDay): LocalDay {
  const next = new Date(dayNumber(day) + DAY_MS);
  return { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() };
}

/** The ISO weekday of a day: Monday 1 … Sunday 7. */
export const isoWeekday = (day: LocalDay): number =>
  ((new Date(dayNumber(day)).getUTCDay() + 6) % 7) + 1;

/**
 * The instant a zone's wall clock shows `seconds` after the midnight of `day`: null where the
 * clock skips that time (spring forward); where it shows it twice (fall back), the first.
 */
export function instantAt(zone: string, day: LocalDay, seconds: number): number | null {
  const wall = dayNumber(day) + seconds * 1000;
  // The offsets a day before and after bound the ones in force around this time.
  const candidates = [offsetMinutes(zone, wall - DAY_MS), offsetMinutes(zone, wall + DAY_MS)].map(
    (offset) => wall - offset * MINUTE_MS,
  );
  const valid = candidates.filter(
    (instant) => instant + offsetMinutes(zone, instant) * MINUTE_MS === wall,
  );
  return valid.length > 0 ? Math.min(...valid) : null;
}

/** Minutes after the local midnight of `day` that an instant shows (past midnight: over 1440). */
export const wallMinutes = (zone: string, day: LocalDay, instant: number): number =>
  (instant + offsetMinutes(zone, instant) * MINUTE_MS - dayNumber(day)) / MINUTE_MS;

/** `YYYYMMDDTHHMMSS`: an instant as a zone's wall clock shows it (RFC 5545 local form). */
export function localStamp(zone: string, instant: number): string {
  const local = new Date(instant + offsetMinutes(zone, instant) * MINUTE_MS).toISOString();
  return local.slice(0, 19).replace(/[-:]/g, '');
}

/** A half-open span of time, [start, end). */
export interface TimeSpan {
  start: Date;
  end: Date;
}

/** Whether two half-open spans share an instant. */
export const overlaps = (a: TimeSpan, b: TimeSpan): boolean =>
  a.start.getTime() < b.end.getTime() && b.start.getTime() < a.end.getTime();

/** Spans sorted by start, those that overlap or touch merged into one. */
export function mergeSpans(spans: readonly TimeSpan[]): TimeSpan[] {
  const sorted = [...spans].sort((a, b) => a.start.getTime() - b.start.getTime());
  const merged: TimeSpan[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last && span.start.getTime() <= last.end.getTime()) {
      if (span.end.getTime() > last.end.getTime()) {
        last.end = span.end;
      }
    } else {
      merged.push({ start: span.start, end: span.end });
    }
  }
  return merged;
}
