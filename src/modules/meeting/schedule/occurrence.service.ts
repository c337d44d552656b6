import { ValidationFailedError } from '../../../platform/shared/errors';
import { DAY_MS } from '../../../platform/shared/time-zone';
import type { MeetingRecord } from '../meeting.store';
import { OCCURRENCE_LIMITS, type Occurrence, occurrencesOf } from './occurrence.rules';
import type { OccurrenceLoaders } from './occurrence.store';

/**
 * Refuses a window that is empty or wider than `maxDays` (as BAD_USER_INPUT on `field`, which
 * names its end).
 */
export function requireWindow(from: Date, to: Date, maxDays: number, field = 'to'): void {
  if (to.getTime() <= from.getTime()) {
    throw ValidationFailedError.of(field, 'TOO_SMALL');
  }
  if (to.getTime() - from.getTime() > maxDays * DAY_MS) {
    throw ValidationFailedError.of(field, 'TOO_LARGE');
  }
}

/**
 * A shown meeting's occurrences in a window (the viewer may see the meeting); a series' changed
 * occurrences come through the request's loader, so a list of series reads them in one statement.
 */
export async function listOccurrences(
  loaders: OccurrenceLoaders,
  meeting: MeetingRecord,
  { from, to }: { from: Date; to: Date },
): Promise<Occurrence[]> {
  requireWindow(from, to, OCCURRENCE_LIMITS.windowDays);
  const edits = meeting.recurrence === null ? [] : await loaders.occurrenceChanges.load(meeting.id);
  return occurrencesOf(meeting, edits, from, to, OCCURRENCE_LIMITS.count);
}
