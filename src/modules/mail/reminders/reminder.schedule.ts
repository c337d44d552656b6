import { MINUTE_MS } from '../../../platform/shared/time-zone';
import {
  MeetingStatus,
  type MeetingRecord,
  type Occurrence,
  type OccurrenceChangeRecord,
  occurrencesOf,
} from '../../meeting';

/**
 * How late a reminder may still go (its job ran late: a busy queue, a restart); past its
 * occurrence's start by more than this, it never does.
 */
export const REMINDER_GRACE_MS = MINUTE_MS;
/** How far ahead the next occurrence of a series is looked for, and among how many. */
const LOOK_AHEAD_MS = 400 * 86_400_000;
const LOOK_AMONG = 64;

/** One reminder: before which occurrence (its start, ISO 8601), by how many minutes. */
export interface Reminder {
  meetingId: string;
  occurrenceStart: string;
  minutes: number;
}

/** A reminder to send: when, and the key of its job (one per meeting, occurrence and minutes). */
export interface ScheduledReminder extends Reminder {
  runAt: Date;
  jobKey: string;
}

/** The job key of a reminder, and its identity among those sent. */
export const reminderKey = (reminder: Reminder): string =>
  `mail-reminder:${reminder.meetingId}:${reminder.occurrenceStart}:${reminder.minutes}`;

/** A meeting as reminders read it: its record and its occurrences changed one by one. */
export interface RemindedMeeting {
  meeting: MeetingRecord;
  edits: readonly OccurrenceChangeRecord[];
}

const isOpen = (meeting: MeetingRecord): boolean =>
  meeting.status !== MeetingStatus.CANCELLED && meeting.status !== MeetingStatus.COMPLETED;

/** The occurrences that take place (not cancelled), from `from` on, by start. */
function upcoming({ meeting, edits }: RemindedMeeting, from: Date): Occurrence[] {
  return occurrencesOf(
    meeting,
    edits,
    from,
    new Date(from.getTime() + LOOK_AHEAD_MS),
    LOOK_AMONG,
  ).filter((occurrence) => !occurrence.cancelled && occurrence.start >= from);
}

/**
 * The reminders of a meeting to schedule at `now`: for each of its reminderMinutes, the first
 * occurrence not cancelled whose reminder is not sent (`sent`, by reminderKey) nor late by more
 * than REMINDER_GRACE_MS; none for a cancelled or completed meeting. Each runs at its time, or
 * at once if that has just passed.
 */
export function remindersToSchedule(
  remind: RemindedMeeting,
  sent: ReadonlySet<string>,
  now: Date,
): ScheduledReminder[] {
  const { meeting } = remind;
  if (!isOpen(meeting) || meeting.reminderMinutes.length === 0) {
    return [];
  }
  const occurrences = upcoming(remind, new Date(now.getTime() - REMINDER_GRACE_MS));
  return meeting.reminderMinutes.flatMap((minutes) => {
    for (const occurrence of occurrences) {
      const at = occurrence.start.getTime() - minutes * MINUTE_MS;
      const reminder = {
        meetingId: meeting.id,
        occurrenceStart: occurrence.start.toISOString(),
        minutes,
      };
      const jobKey = reminderKey(reminder);
      if (at >= now.getTime() - REMINDER_GRACE_MS && !sent.has(jobKey)) {
        return [{ ...reminder, jobKey, runAt: new Date(Math.max(at, now.getTime())) }];
      }
    }
    return [];
  });
}

/**
 * Whether a reminder is still due at `now`, as its job fires: the meeting open, the minutes
 * still among its reminderMinutes, an occurrence not cancelled starting then, and that start
 * not past by more than REMINDER_GRACE_MS.
 */
export function stillDue(remind: RemindedMeeting, reminder: Reminder, now: Date): boolean {
  const start = Date.parse(reminder.occurrenceStart);
  return (
    isOpen(remind.meeting) &&
    remind.meeting.reminderMinutes.includes(reminder.minutes) &&
    now.getTime() <= start + REMINDER_GRACE_MS &&
    upcoming(remind, new Date(start)).some((occurrence) => occurrence.start.getTime() === start)
  );
}
