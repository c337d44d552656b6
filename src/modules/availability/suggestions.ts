import {
  dayNumber,
  instantAt,
  isoWeekday,
  localDayOf,
  MINUTE_MS,
  nextDay,
  type TimeSpan,
  wallMinutes,
} from '../../platform/shared/time-zone';

/** What suggestions are looked for in (all validated). */
export interface SlotSearch {
  from: Date;
  to: Date;
  /** No slot starts before this (now). */
  notBefore: Date;
  timeZone: string;
  durationMinutes: number;
  /** Working hours as minutes after local midnight: a slot lies within [start, end]. */
  workStart: number;
  workEnd: number;
  weekdays: ReadonlySet<number>;
  stepMinutes: number;
  /** How many attendees a slot needs at least. */
  minimumAttendees: number;
  first: number;
}

/** An attendee's busy time (sorted, merged); null: not shown, so it holds no slot back. */
export interface AttendeeBusy {
  userId: string;
  busy: readonly TimeSpan[] | null;
}

export interface Suggestion extends TimeSpan {
  available: string[];
  unavailable: string[];
}

/** Whether sorted, merged spans have one that overlaps [start, end) (binary search). */
function busyDuring(spans: readonly TimeSpan[], start: number, end: number): boolean {
  let low = 0;
  let high = spans.length;
  // The first span that ends after `start`.
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((spans[middle] as TimeSpan).end.getTime() <= start) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  const span = spans[low];
  return span !== undefined && span.start.getTime() < end;
}

/**
 * The candidate starts: on each chosen weekday between from and to, every `stepMinutes` of wall
 * clock time from the start of working hours, where the slot ends (its duration later, in
 * absolute time, so across a daylight-saving change too) on the same day by the end of working
 * hours. A wall time the zone skips that day is no start. On a day whose offset is the same at
 * both ends of working hours (all but a few a year), the starts are steps of plain milliseconds.
 */
function* candidateSlots(search: SlotSearch): Generator<TimeSpan> {
  const { timeZone: zone, workStart, workEnd, stepMinutes, durationMinutes } = search;
  const duration = durationMinutes * MINUTE_MS;
  const earliest = Math.max(search.from.getTime(), search.notBefore.getTime());
  const lastDay = dayNumber(localDayOf(zone, search.to.getTime() - 1));
  for (
    let day = localDayOf(zone, search.from.getTime());
    dayNumber(day) <= lastDay;
    day = nextDay(day)
  ) {
    if (!search.weekdays.has(isoWeekday(day))) {
      continue;
    }
    const opens = instantAt(zone, day, workStart * 60);
    const closes = instantAt(zone, day, workEnd * 60);
    const steady =
      opens !== null && closes !== null && closes - opens === (workEnd - workStart) * MINUTE_MS;
    for (let minute = workStart; minute + durationMinutes <= workEnd; minute += stepMinutes) {
      const start = steady
        ? (opens as number) + (minute - workStart) * MINUTE_MS
        : instantAt(zone, day, minute * 60);
      if (start === null || start < earliest || start + duration > search.to.getTime()) {
        continue;
      }
      if (!steady && wallMinutes(zone, day, start + duration) > workEnd) {
        continue;
      }
      yield { start: new Date(start), end: new Date(start + duration) };
    }
  }
}

/**
 * The best slots: those enough attendees are free for, most attendees first, then earliest.
 * An attendee whose busy time is not shown counts as free.
 */
export function suggestSlots(search: SlotSearch, attendees: readonly AttendeeBusy[]): Suggestion[] {
  const found: Suggestion[] = [];
  for (const slot of candidateSlots(search)) {
    const available: string[] = [];
    const unavailable: string[] = [];
    for (const { userId, busy } of attendees) {
      const free = !busy || !busyDuring(busy, slot.start.getTime(), slot.end.getTime());
      (free ? available : unavailable).push(userId);
    }
    if (available.length >= search.minimumAttendees) {
      found.push({ ...slot, available, unavailable });
    }
  }
  return found
    .sort(
      (a, b) => b.available.length - a.available.length || a.start.getTime() - b.start.getTime(),
    )
    .slice(0, search.first);
}
