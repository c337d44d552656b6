import { MINUTE_MS, type TimeSpan } from '../../../platform/shared/time-zone';
import type { MeetingRecord } from '../meeting.store';
import { Series, type Timing } from './recurrence.rules';

/** How one occurrence was changed on its own (see OccurrenceChange). */
export interface OccurrenceEdit {
  originalStartTime: string;
  startTime: string | null;
  cancelled: boolean;
}

/** One occurrence of a meeting, where it takes place after its own changes. */
export interface Occurrence extends TimeSpan {
  originalStart: Date;
  cancelled: boolean;
}

/** The most occurrences one call lists, and the widest window it may ask about. */
export const OCCURRENCE_LIMITS = { count: 500, windowDays: 366 } as const;

/**
 * The occurrences of a meeting that overlap [from, to), by start, at most `limit`: its rule's
 * (one for a single meeting), each where its change put it, cancelled ones marked; occurrences
 * moved into the window from outside it are found through their changes.
 */
export function occurrencesOf(
  timing: Timing,
  edits: readonly OccurrenceEdit[],
  from: Date,
  to: Date,
  limit: number,
  /** The meeting's rule, when the caller has it already (it is parsed on construction). */
  series: Series = new Series(timing),
): Occurrence[] {
  const duration = timing.durationMinutes * MINUTE_MS;
  const byOriginal = new Map(edits.map((edit) => [Date.parse(edit.originalStartTime), edit]));
  const window: TimeSpan = { start: from, end: to };
  const found: Occurrence[] = [];
  const place = (originalStart: Date, edit: OccurrenceEdit | undefined): void => {
    const start = edit?.startTime ? new Date(edit.startTime) : originalStart;
    const occurrence = {
      start,
      end: new Date(start.getTime() + duration),
      originalStart,
      cancelled: edit?.cancelled ?? false,
    };
    if (occurrence.start < window.end && window.start < occurrence.end) {
      found.push(occurrence);
    }
  };
  const listed = new Set<number>();
  for (const start of series.startsOverlapping(from, to, limit + edits.length)) {
    listed.add(start.getTime());
    place(start, byOriginal.get(start.getTime()));
  }
  for (const [original, edit] of byOriginal) {
    if (edit.startTime && !listed.has(original)) {
      place(new Date(original), edit);
    }
  }
  return found.sort((a, b) => a.start.getTime() - b.start.getTime()).slice(0, limit);
}

/** What a change of one occurrence answers: the meeting, and the occurrence as it now is. */
export interface OccurrenceChanged {
  meeting: MeetingRecord;
  occurrence: Occurrence;
}
