import { DAY_MS, mergeSpans, type TimeSpan } from '../../../platform/shared/time-zone';
import { type BookingStore, RESOURCE_LIMITS } from '../../resource';
import { type OccurrenceEdit, occurrencesOf, type Timing } from '../schedule';
import { MeetingStatus } from '../meeting.entity';

/** What a meeting books of its resources now: its time from `from` on, and how far ahead. */
export interface BookingPlan {
  /** Sorted and merged (a moved occurrence may overlap another of its own series). */
  spans: TimeSpan[];
  /** A series booked only so far (the periodic job books on from there); null: all of it. */
  bookedUntil: Date | null;
}

/** Occurrences one booking holds at most: a horizon's worth of daily ones, and their moves. */
const MOST_OCCURRENCES = RESOURCE_LIMITS.bookingHorizonDays.max * 2;

/**
 * The time a meeting holds its resources from `from` on: a single meeting's one span (none once
 * it has ended), a series' occurrences that take place and start within `horizonDays` of `from`
 * (each where its change put it, cancelled ones left out).
 */
export function bookingPlan(
  meeting: Timing & { recurrenceEndsAt: string | null },
  edits: readonly OccurrenceEdit[],
  from: Date,
  horizonDays: number,
): BookingPlan {
  const until = new Date(from.getTime() + horizonDays * DAY_MS);
  const ends = meeting.recurrenceEndsAt ? new Date(meeting.recurrenceEndsAt) : null;
  const single = meeting.recurrence === null;
  const occurrences = occurrencesOf(
    meeting,
    edits,
    from,
    single ? new Date(8.64e15) : until,
    MOST_OCCURRENCES,
  );
  return {
    spans: mergeSpans(occurrences.filter((occurrence) => !occurrence.cancelled)),
    bookedUntil: single || (ends !== null && ends <= until) ? null : until,
  };
}

/**
 * Books a meeting's resources again after its time changed (in its transaction, the meeting
 * locked): what it held from now on is dropped, then its new time is booked. A meeting without
 * resources costs the one statement that finds it has none.
 */
export async function bookAgain(
  tx: { readonly bookings: BookingStore },
  meeting: Timing & { id: string; recurrenceEndsAt: string | null },
  edits: readonly OccurrenceEdit[],
  horizonDays: number,
  now: Date = new Date(),
): Promise<void> {
  const held = await tx.bookings.release(meeting.id, now);
  if (held.length > 0) {
    const plan = bookingPlan(meeting, edits, now, horizonDays);
    await tx.bookings.rebook(meeting.id, plan.spans, plan.bookedUntil);
  }
}

/**
 * Frees what a meeting books once a change cancels it (in the change's transaction): a
 * cancelled meeting holds no room.
 */
export async function freeIfCancelled(
  tx: { readonly bookings: BookingStore },
  before: { status: MeetingStatus },
  after: { id: string; status: MeetingStatus },
): Promise<void> {
  if (before.status !== MeetingStatus.CANCELLED && after.status === MeetingStatus.CANCELLED) {
    await tx.bookings.release(after.id, null);
  }
}
