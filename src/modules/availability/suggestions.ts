import {
  dayNumber,
  instantAt,
  isoWeekday,
  localDayOf,
  MINUTE_MS,
  mergeSpans,
  nextDay,
  type TimeSpan,
  wallMinutes,
} from '../../platform/shared/time-zone';
import { anyDuring, within } from './span-search';

/** One window of working hours for everybody, wall-clock in one zone (the input's override). */
export interface SharedHours {
  timeZone: string;
  /** Working hours as minutes after local midnight: a slot lies within [start, end]. */
  workStart: number;
  workEnd: number;
  weekdays: ReadonlySet<number>;
}

/** What suggestions are looked for in (all validated). */
export interface SlotSearch {
  from: Date;
  to: Date;
  /** No slot starts before this (now). */
  notBefore: Date;
  /** One window for all (the override); null: each attendee's own working hours. */
  shared: SharedHours | null;
  durationMinutes: number;
  stepMinutes: number;
  /** How many attendees a slot needs at least. */
  minimumAttendees: number;
  first: number;
}

/**
 * An attendee's busy time and working hours in the window (each sorted, merged); null: not shown,
 * so it holds no slot back.
 */
export interface AttendeeTime {
  userId: string;
  busy: readonly TimeSpan[] | null;
  working: readonly TimeSpan[] | null;
}

/** How a slot suits one attendee. */
export interface AttendeeFit {
  userId: string;
  available: boolean;
  inWorkingHours: boolean;
}

/** A room a suggestion may take: its bookings and its working hours in the window (sorted). */
export interface RoomTime<R> {
  room: R;
  busy: readonly TimeSpan[];
  /** null: it may be used at any time. */
  working: readonly TimeSpan[] | null;
}

export interface Suggestion<R = never> extends TimeSpan {
  available: string[];
  unavailable: string[];
  attendees: AttendeeFit[];
  /** A room free then (when rooms were asked for), else null. */
  room: R | null;
}

/** The first of `rooms` free for all of [start, end) and within its working hours, or null. */
const freeRoom = <R>(rooms: readonly RoomTime<R>[], start: number, end: number): R | null =>
  rooms.find(
    ({ busy, working }) =>
      !anyDuring(busy, start, end) && (!working || within(working, start, end)),
  )?.room ?? null;

/**
 * The candidate starts: on each chosen weekday between from and to, every `stepMinutes` of wall
 * clock time from the start of working hours, where the slot ends (its duration later, in
 * absolute time, so across a daylight-saving change too) on the same day by the end of working
 * hours. A wall time the zone skips that day is no start. On a day whose offset is the same at
 * both ends of working hours (all but a few a year), the starts are steps of plain milliseconds.
 */
function* sharedSlots(search: SlotSearch, shared: SharedHours): Generator<TimeSpan> {
  const { stepMinutes, durationMinutes } = search;
  const { timeZone: zone, workStart, workEnd } = shared;
  const duration = durationMinutes * MINUTE_MS;
  const earliest = Math.max(search.from.getTime(), search.notBefore.getTime());
  const lastDay = dayNumber(localDayOf(zone, search.to.getTime() - 1));
  for (
    let day = localDayOf(zone, search.from.getTime());
    dayNumber(day) <= lastDay;
    day = nextDay(day)
  ) {
    if (!shared.weekdays.has(isoWeekday(day))) {
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
 * The candidate starts within anyone's working hours: every `stepMinutes` from the start of each
 * stretch of time some attendee works (their hours merged), where the slot ends within it.
 */
function* ownHoursSlots(
  search: SlotSearch,
  attendees: readonly AttendeeTime[],
): Generator<TimeSpan> {
  const step = search.stepMinutes * MINUTE_MS;
  const duration = search.durationMinutes * MINUTE_MS;
  const earliest = Math.max(search.from.getTime(), search.notBefore.getTime());
  const anyone = mergeSpans(attendees.flatMap((attendee) => attendee.working ?? []));
  for (const stretch of anyone) {
    const end = Math.min(stretch.end.getTime(), search.to.getTime());
    for (let start = stretch.start.getTime(); start + duration <= end; start += step) {
      if (start >= earliest) {
        yield { start: new Date(start), end: new Date(start + duration) };
      }
    }
  }
}

/**
 * The best slots: those enough attendees are available for, most attendees first, then earliest.
 * An attendee is available when free and, without a shared window, within their working hours;
 * one whose busy time or hours are not shown counts as free or within them.
 */
export function suggestSlots<R = never>(
  search: SlotSearch,
  attendees: readonly AttendeeTime[],
  /** Rooms in the order they are offered (null: none asked for): a slot needs one free. */
  rooms: readonly RoomTime<R>[] | null = null,
): Suggestion<R>[] {
  const found: Array<Omit<Suggestion<R>, 'attendees' | 'room'>> = [];
  const { shared } = search;
  const candidates = shared ? sharedSlots(search, shared) : ownHoursSlots(search, attendees);
  for (const slot of candidates) {
    const [start, end] = [slot.start.getTime(), slot.end.getTime()];
    const available: string[] = [];
    const unavailable: string[] = [];
    for (const { userId, busy, working } of attendees) {
      const free =
        (!busy || !anyDuring(busy, start, end)) &&
        (shared !== null || !working || within(working, start, end));
      (free ? available : unavailable).push(userId);
    }
    if (available.length >= search.minimumAttendees) {
      found.push({ ...slot, available, unavailable });
    }
  }
  found.sort(
    (a, b) => b.available.length - a.available.length || a.start.getTime() - b.start.getTime(),
  );
  // Rooms and how each slot suits each attendee, for the best slots only, until enough are found.
  const best: Suggestion<R>[] = [];
  for (const slot of found) {
    if (best.length >= search.first) {
      break;
    }
    const room = rooms ? freeRoom(rooms, slot.start.getTime(), slot.end.getTime()) : null;
    if (rooms && room === null) {
      continue;
    }
    best.push({
      ...slot,
      room,
      attendees: attendees.map(({ userId, working }) => ({
        userId,
        available: slot.available.includes(userId),
        inWorkingHours: !working || within(working, slot.start.getTime(), slot.end.getTime()),
      })),
    });
  }
  return best;
}
