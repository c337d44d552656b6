import { occurrencesOf, type OccurrenceEdit, type Timing } from '../meeting';
import { MINUTE_MS, type TimeSpan } from '../../platform/shared/time-zone';
import type { AwayInvitation, DecliningPeriod } from './away-declines.store';

/** Occurrences of a bounded series looked at, at most: a longer one is never declined whole. */
const OCCURRENCES_LOOKED_AT = 1_000;

/** The first of `periods` that overlaps `span`, if any. */
const periodDuring = (
  periods: readonly DecliningPeriod[],
  span: TimeSpan,
): DecliningPeriod | undefined =>
  periods.find(
    (period) =>
      period.start.getTime() < span.end.getTime() && period.end.getTime() > span.start.getTime(),
  );

/**
 * The times a meeting takes place: its one time, or every occurrence of a bounded series that is
 * not cancelled (moved ones where they were moved); null for a series without end or too long.
 */
function timesOf(
  meeting: Timing & { recurrenceEndsAt: string | null; edits: readonly OccurrenceEdit[] },
): TimeSpan[] | null {
  const start = new Date(meeting.startTime);
  if (meeting.recurrence === null) {
    return [{ start, end: new Date(start.getTime() + meeting.durationMinutes * MINUTE_MS) }];
  }
  if (meeting.recurrenceEndsAt === null) {
    return null;
  }
  // Moved occurrences may lie past the rule's own end.
  const latest = Math.max(
    Date.parse(meeting.recurrenceEndsAt),
    ...meeting.edits.map((edit) => (edit.startTime ? Date.parse(edit.startTime) : 0)),
  );
  const found = occurrencesOf(
    meeting,
    meeting.edits,
    new Date(0),
    new Date(latest + meeting.durationMinutes * MINUTE_MS + 1),
    OCCURRENCES_LOOKED_AT,
  ).filter((occurrence) => !occurrence.cancelled);
  return found.length === 0 || found.length >= OCCURRENCES_LOOKED_AT ? null : found;
}

/**
 * Why an invitation is declined for someone away, or null when it is not: a meeting that takes
 * place (at least partly) during one of their declining out-of-office periods is, with the first
 * such period's title as the reason; a series only when every occurrence it has left does (an
 * invitation answers the whole series), with the first occurrence's period's title.
 */
export function declineReasonOf(invitation: AwayInvitation): string | null {
  const times = timesOf(invitation.meeting);
  if (!times) {
    return null;
  }
  let first: DecliningPeriod | undefined;
  for (const time of times) {
    const period = periodDuring(invitation.periods, time);
    if (!period) {
      return null;
    }
    first ??= period;
  }
  return first?.title ?? null;
}
