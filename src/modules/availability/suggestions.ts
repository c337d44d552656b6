import {
  MINUTE_MS,
  type Temporal,
  temporal,
  type TimeSpan,
  zonedAt,
} from '../../platform/shared/time-zone';

/** The days of the week, as RFC 5545 names them, in ISO order (Monday is 1). */
export enum Weekday {
  MO = 1,
  TU = 2,
  WE = 3,
  TH = 4,
  FR = 5,
  SA = 6,
  SU = 7,
}

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

const minutesOfDay = (time: Temporal.ZonedDateTime): number => time.hour * 60 + time.minute;

/**
 * The candidate starts: on each chosen weekday between from and to, every `stepMinutes` of wall
 * clock time from the start of working hours, where the slot ends (its duration later, in
 * absolute time, so across a daylight-saving change too) on the same day by the end of working
 * hours. A wall time the zone skips that day is no start.
 */
function* candidateSlots(search: SlotSearch): Generator<TimeSpan> {
  const duration = search.durationMinutes * MINUTE_MS;
  const { PlainDate, PlainTime } = temporal();
  const lastDay = zonedAt(search.to, search.timeZone).toPlainDate();
  for (
    let day = zonedAt(search.from, search.timeZone).toPlainDate();
    PlainDate.compare(day, lastDay) <= 0;
    day = day.add({ days: 1 })
  ) {
    if (!search.weekdays.has(day.dayOfWeek)) {
      continue;
    }
    for (
      let minute = search.workStart;
      minute + search.durationMinutes <= search.workEnd;
      minute += search.stepMinutes
    ) {
      const start = day.toZonedDateTime({
        timeZone: search.timeZone,
        plainTime: new PlainTime(Math.floor(minute / 60), minute % 60),
      });
      if (minutesOfDay(start) !== minute) {
        continue;
      }
      const startMs = start.epochMilliseconds;
      const end = zonedAt(new Date(startMs + duration), search.timeZone);
      const endMinute = minutesOfDay(end) + (end.toPlainDate().equals(day) ? 0 : 24 * 60);
      if (
        endMinute > search.workEnd ||
        startMs < search.from.getTime() ||
        startMs < search.notBefore.getTime() ||
        startMs + duration > search.to.getTime()
      ) {
        continue;
      }
      yield { start: new Date(startMs), end: new Date(startMs + duration) };
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
