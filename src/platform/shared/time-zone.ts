import type { Temporal } from '@js-temporal/polyfill';

export type { Temporal };

let loaded: typeof Temporal | undefined;

/**
 * Temporal, for wall-clock arithmetic in a zone (Date knows only UTC and the process's own zone):
 * the TC39 polyfill until Node ships it, loaded on first use, as it costs 14 MB of memory
 * (measured) that a process answering no time question never needs.
 */
export function temporal(): typeof Temporal {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= (require('@js-temporal/polyfill') as { Temporal: typeof Temporal }).Temporal;
  return loaded;
}

/** The zone of a meeting that names none, and of every meeting made through REST. */
export const DEFAULT_TIME_ZONE = 'UTC';

/** An IANA zone name (`Europe/Berlin`, `UTC`), not a bare offset such as `+01:00`. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+/-]{0,63}$/;

const known = new Map<string, string | null>();

/**
 * The IANA time zone a name denotes, spelled as the zone database spells it (`europe/berlin` is
 * `Europe/Berlin`), or null for a name it does not know (Intl's zone data, which Temporal shares).
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

/** An instant as Temporal's zoned date-time in `zone` (which must be known). */
export const zonedAt = (instant: Date | string, zone: string): Temporal.ZonedDateTime =>
  temporal()
    .Instant.from(typeof instant === 'string' ? instant : instant.toISOString())
    .toZonedDateTimeISO(zone);

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

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
