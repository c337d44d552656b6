import type { JobSpec } from '../../../platform/jobs/job-queue';
import { payloadOf } from '../../../platform/jobs/job-payload';
import type { Reminder, ScheduledReminder } from './reminder.schedule';

/** The background jobs of reminders (graphile-worker task identifiers). */
export const REMINDER_TASKS = {
  /** Sends one reminder, if it is still due: records it and logs its REMINDER change. */
  remind: 'mail_remind',
  /** Schedules the next reminders of meetings that have none scheduled (a safety net). */
  sweep: 'mail_reminder_sweep',
} as const;

/**
 * The job of a reminder: its key names the meeting, the occurrence and the minutes, so that
 * scheduling it again replaces it, and one that is no longer wanted is removed by its key.
 */
export function reminderJob(reminder: ScheduledReminder): JobSpec {
  return {
    task: REMINDER_TASKS.remind,
    payload: {
      meetingId: reminder.meetingId,
      occurrenceStart: reminder.occurrenceStart,
      minutes: reminder.minutes,
    },
    key: reminder.jobKey,
    runAt: reminder.runAt,
    maxAttempts: 5,
  };
}

/** A remind job's payload, checked. */
export const reminderOf = (payload: unknown): Reminder | null =>
  payloadOf(payload, { meetingId: 'string', occurrenceStart: 'string', minutes: 'number' });
