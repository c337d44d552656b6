import type { RRuleTemporal as Rule } from 'rrule-temporal' with { 'resolution-mode': 'import' };
import { ValidateBy } from 'class-validator';
import {
  DAY_MS,
  dayNumber,
  instantAt,
  localStamp,
  MINUTE_MS,
} from '../../../platform/shared/time-zone';

const DAY_SECONDS = 86_400;

let RRuleTemporal: typeof Rule | undefined;

/**
 * The rule class, loaded on first use (with the Temporal polyfill it bundles, it costs memory a
 * process answering no time question never needs). The package's types are ES module
 * declarations; at run time its CommonJS build is loaded.
 */
function ruleClass(): typeof Rule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  RRuleTemporal ??= (require('rrule-temporal') as { RRuleTemporal: typeof Rule }).RRuleTemporal;
  return RRuleTemporal;
}

/**
 * Recurrence: an RFC 5545 RRULE (the subset calendars agree on: FREQ DAILY, WEEKLY or MONTHLY,
 * INTERVAL, BYDAY, BYMONTHDAY, COUNT or UNTIL, WKST), read as wall-clock time in the meeting's
 * time zone, so a weekly 09:00 Europe/Berlin meeting stays at 09:00 local across daylight-saving
 * changes. Expansion is rrule-temporal's (the `rrule` package has known daylight-saving bugs).
 */
export const RECURRENCE_LIMITS = { length: 500, count: 1000, interval: 366 } as const;

const WEEKDAY = '(MO|TU|WE|TH|FR|SA|SU)';
const list = (item: string) => new RegExp(`^${item}(,${item})*$`);
const MONTH_DAY = '-?([1-9]|[12][0-9]|3[01])';
/** Each part's form; which FREQ allows which part is checked beside. */
const PARTS: Record<string, RegExp> = {
  FREQ: /^(DAILY|WEEKLY|MONTHLY)$/,
  INTERVAL: /^[1-9][0-9]{0,2}$/,
  BYDAY: list(`([+-]?[1-5])?${WEEKDAY}`),
  BYMONTHDAY: list(MONTH_DAY),
  COUNT: /^[1-9][0-9]{0,3}$/,
  UNTIL: /^[0-9]{8}(T[0-9]{6}Z)?$/,
  WKST: new RegExp(`^${WEEKDAY}$`),
};

/** A rule's parts by name, as given (upper-cased, without an `RRULE:` prefix). */
type RuleParts = Record<string, string>;

function partsOf(text: string): RuleParts | null {
  const rule = text
    .trim()
    .toUpperCase()
    .replace(/^RRULE:/, '');
  if (rule.length === 0 || rule.length > RECURRENCE_LIMITS.length) {
    return null;
  }
  const parts: RuleParts = {};
  for (const part of rule.split(';')) {
    const [name, value, extra] = part.split('=');
    const form = name === undefined ? undefined : PARTS[name];
    if (
      !form ||
      value === undefined ||
      extra !== undefined ||
      name! in parts ||
      !form.test(value)
    ) {
      return null;
    }
    parts[name!] = value;
  }
  const freq = parts['FREQ'];
  const numbered = /[0-9]/.test(parts['BYDAY'] ?? '');
  const valid =
    freq !== undefined &&
    !('COUNT' in parts && 'UNTIL' in parts) &&
    Number(parts['COUNT'] ?? 1) <= RECURRENCE_LIMITS.count &&
    Number(parts['INTERVAL'] ?? 1) <= RECURRENCE_LIMITS.interval &&
    // A numbered weekday (the 2nd Tuesday) is a monthly rule's; a weekly rule has no month days.
    !(numbered && freq !== 'MONTHLY') &&
    !(freq === 'WEEKLY' && 'BYMONTHDAY' in parts);
  return valid ? parts : null;
}

/** A rule in the form it is stored and shown (`FREQ=WEEKLY;BYDAY=MO`), or null if invalid. */
export function normalRecurrence(text: string): string | null {
  const parts = partsOf(text);
  return parts
    ? Object.entries(parts)
        .map(([name, value]) => `${name}=${value}`)
        .join(';')
    : null;
}

/** A recurrence rule of the supported subset, in its stored or given form. */
export const IsRecurrence = (): PropertyDecorator =>
  ValidateBy({
    name: 'isRecurrence',
    validator: {
      validate: (value) =>
        value === null || value === undefined || (typeof value === 'string' && !!partsOf(value)),
    },
  });

/** When and how a meeting happens: what its occurrences derive from. */
export interface Timing {
  /** The first occurrence's start. */
  startTime: string | Date;
  durationMinutes: number;
  timeZone: string;
  recurrence: string | null;
}

/** Enough steps for a daily rule across decades; past them the library gives up. */
const MAX_ITERATIONS = 100_000;

/** `UNTIL` as the library reads it: a date means through the end of that day in the zone. */
function untilInstant(until: string, zone: string): string {
  if (until.includes('T')) {
    return until;
  }
  const day = {
    year: Number(until.slice(0, 4)),
    month: Number(until.slice(4, 6)),
    day: Number(until.slice(6, 8)),
  };
  // The day's last second; on a day whose clock skips it (none known), its last minute's start.
  const end = instantAt(zone, day, DAY_SECONDS - 1) ?? instantAt(zone, day, DAY_SECONDS - 60);
  return `${localStamp('UTC', end ?? dayNumber(day) + DAY_MS - 1000)}Z`;
}

/** A rule's parts as text, a date UNTIL as the instant that day ends in `zone`. */
const instantRule = (parts: RuleParts, zone: string): string =>
  Object.entries(parts)
    .map(([name, value]) =>
      name === 'UNTIL' ? `UNTIL=${untilInstant(value, zone)}` : `${name}=${value}`,
    )
    .join(';');

/**
 * A stored rule as an iCalendar RRULE value beside a DTSTART in the zone (RFC 5545 §3.3.10: with a
 * zoned DTSTART, UNTIL is a UTC date-time): a date UNTIL, through that day, becomes the instant
 * the day ends in `zone`. Null for a rule that is not valid.
 */
export function calendarRule(recurrence: string, zone: string): string | null {
  const parts = partsOf(recurrence);
  return parts ? instantRule(parts, zone) : null;
}

/** The starts of a meeting's occurrences: one for a single meeting, its rule's for a series. */
export class Series {
  private readonly start: Date;
  private readonly rule: Rule | null;

  constructor(readonly timing: Timing) {
    this.start = new Date(timing.startTime);
    const parts = timing.recurrence === null ? null : partsOf(timing.recurrence);
    if (timing.recurrence !== null && !parts) {
      throw new Error('stored recurrence is not a valid rule');
    }
    this.rule = parts
      ? new (ruleClass())({
          // DTSTART as wall-clock time in the zone; the library reads zones with its own Temporal.
          rruleString:
            `DTSTART;TZID=${timing.timeZone}:${localStamp(timing.timeZone, this.start.getTime())}\n` +
            `RRULE:${instantRule(parts, timing.timeZone)}`,
          tzid: timing.timeZone,
          maxIterations: MAX_ITERATIONS,
        })
      : null;
  }

  get recurring(): boolean {
    return this.rule !== null;
  }

  get durationMs(): number {
    return this.timing.durationMinutes * MINUTE_MS;
  }

  /**
   * Whether the rule and the start agree: the start is the rule's first occurrence (RFC 5545 asks
   * DTSTART to be one), and the rule has one at all.
   */
  consistent(): boolean {
    if (!this.rule) {
      return true;
    }
    try {
      const [first] = this.rule.all((_, index) => index < 1);
      return first !== undefined && first.epochMilliseconds === this.start.getTime();
    } catch {
      return false;
    }
  }

  /** Starts of the occurrences that overlap [from, to), in order, at most `limit`. */
  startsOverlapping(from: Date, to: Date, limit: number): Date[] {
    if (!this.rule) {
      const end = this.start.getTime() + this.durationMs;
      return this.start.getTime() < to.getTime() && end > from.getTime() ? [this.start] : [];
    }
    const after = new Date(Math.max(from.getTime() - this.durationMs + 1, this.start.getTime()));
    if (after.getTime() >= to.getTime()) {
      return [];
    }
    const found: Date[] = [];
    for (const start of this.rule.between(after, new Date(to.getTime() - 1), true)) {
      if (found.length >= limit) {
        break;
      }
      found.push(new Date(start.epochMilliseconds));
    }
    return found;
  }

  /** Whether an occurrence starts at `instant`. */
  occursAt(instant: Date): boolean {
    const [found] = this.startsOverlapping(instant, new Date(instant.getTime() + 1), 1);
    return found?.getTime() === instant.getTime();
  }

  /** The first occurrence starting at or after `instant`, or null when the series has ended. */
  nextFrom(instant: Date): Date | null {
    if (!this.rule) {
      return this.start.getTime() >= instant.getTime() ? this.start : null;
    }
    const next = this.rule.next(instant, true);
    return next ? new Date(next.epochMilliseconds) : null;
  }

  /**
   * When the series' last occurrence ends (null: it never ends), for the span it is indexed by.
   * With UNTIL, the end of an occurrence starting at UNTIL bounds it.
   */
  endsAt(): Date | null {
    if (!this.rule) {
      return new Date(this.start.getTime() + this.durationMs);
    }
    const options = this.rule.options();
    if (options.count !== undefined) {
      const all = this.rule.all();
      const last = all[all.length - 1];
      return last ? new Date(last.epochMilliseconds + this.durationMs) : this.start;
    }
    if (options.until) {
      return new Date(options.until.epochMilliseconds + this.durationMs);
    }
    return null;
  }
}

/**
 * The bound a meeting's series is stored with (`recurrenceEndsAt`), or null for a single meeting
 * or a series without end; throws INVALID_RECURRENCE at `field` when the rule and the start
 * disagree (the start is not the rule's first occurrence, or the rule has none).
 */
export function seriesBound(timing: Timing, invalid: () => Error): Date | null {
  const series = new Series(timing);
  if (!series.consistent()) {
    throw invalid();
  }
  return series.recurring ? series.endsAt() : null;
}
