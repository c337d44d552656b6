import {
  DAY_MS,
  dayNumber,
  instantAt,
  isoWeekday,
  type LocalDay,
  localDayOf,
  MINUTE_MS,
  mergeSpans,
  nextDay,
  offsetMinutes,
  type TimeSpan,
} from '../../platform/shared/time-zone';
import type { WorkingPeriodRecord } from '../user';

/** Minutes after midnight of an `HH:MM` time of day (24:00 is 1440). */
export const minutesOf = (time: string): number => {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
};

/**
 * The instant a zone's wall clock reaches `minutes` after the midnight of `day`: where the clock
 * skips that time (spring forward), the instant it jumps past it, as Temporal's `compatible`
 * reading has it; where it shows it twice, the first.
 */
function reached(zone: string, day: LocalDay, minutes: number): number {
  const exact = instantAt(zone, day, minutes * 60);
  if (exact !== null) {
    return exact;
  }
  const wall = dayNumber(day) + minutes * MINUTE_MS;
  return wall - offsetMinutes(zone, wall - DAY_MS) * MINUTE_MS;
}

/**
 * When a working week, wall-clock periods in `zone`, falls within `window`: its periods on each
 * day that meets the window, as instants (across daylight-saving changes), cut to the window,
 * merged and sorted.
 */
export function workingSpans(
  zone: string,
  week: readonly WorkingPeriodRecord[],
  window: TimeSpan,
): TimeSpan[] {
  const from = window.start.getTime();
  const to = window.end.getTime();
  const spans: TimeSpan[] = [];
  // The day before the window's first: a period may run past its midnight into the window.
  const first = localDayOf(zone, from - DAY_MS);
  const last = dayNumber(localDayOf(zone, to));
  for (let day = first; dayNumber(day) <= last; day = nextDay(day)) {
    const weekday = isoWeekday(day);
    for (const period of week) {
      if (period.weekday !== weekday) {
        continue;
      }
      const start = Math.max(reached(zone, day, minutesOf(period.start)), from);
      const end = Math.min(reached(zone, day, minutesOf(period.end)), to);
      if (end > start) {
        spans.push({ start: new Date(start), end: new Date(end) });
      }
    }
  }
  return mergeSpans(spans);
}
