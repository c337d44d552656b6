import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { JobHandler } from '../../../platform/jobs/job-queue';
import { ChangeLogStore } from '../../../platform/live/change-log';
import { inSqlTransaction } from '../../../platform/sql/sql-transaction';
import { meetingEntry, MeetingEventKind } from '../../meeting';
import { REMINDER_TASKS, reminderOf } from './reminder.jobs';
import { remindersToSchedule, reminderKey, stillDue } from './reminder.schedule';
import { type ReminderPlan, ReminderStore } from './reminder.store';

/** Meetings the sweep looks at in one statement. */
const SWEEP_PAGE = 500;
/** The sweep's first page starts after this id (below every UUID). */
const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/** The reminders these meetings want scheduled at `now` (a meeting gone wants none). */
export async function planReminders(
  em: EntityManager,
  meetingIds: readonly string[],
  now = new Date(),
): Promise<ReminderPlan> {
  if (meetingIds.length === 0) {
    return { meetingIds, reminders: [] };
  }
  const store = new ReminderStore(em);
  const [found, sent] = await Promise.all([store.meetings(meetingIds), store.sent(meetingIds)]);
  return {
    meetingIds,
    reminders: found.flatMap((meeting) => remindersToSchedule(meeting, sent, now)),
  };
}

/** Plans and schedules the reminders of these meetings, in one transaction. */
async function reschedule(em: EntityManager, meetingIds: readonly string[]): Promise<void> {
  const plan = await planReminders(em, meetingIds);
  await inSqlTransaction(em, (tx) => new ReminderStore(tx).replace(plan));
}

/**
 * A reminder's job, as it fires: if it is still due (stillDue), it is recorded sent and its
 * REMINDER change logged in one transaction, only if no instance recorded it first; either way,
 * the meeting's next reminders are scheduled.
 */
async function remind(payload: unknown, em: () => EntityManager, logger: Logger): Promise<void> {
  const reminder = reminderOf(payload);
  if (!reminder) {
    return;
  }
  const now = new Date();
  const [meeting] = await new ReminderStore(em()).meetings([reminder.meetingId]);
  if (meeting && stillDue(meeting, reminder, now)) {
    const occurredAt = now.toISOString();
    const sent = await inSqlTransaction(em(), async (tx) => {
      if (!(await new ReminderStore(tx).fire(reminderKey(reminder), occurredAt))) {
        return false;
      }
      await new ChangeLogStore(tx).append([
        meetingEntry(reminder.meetingId, { kind: MeetingEventKind.REMINDER }, occurredAt),
      ]);
      return true;
    });
    if (sent) {
      logger.debug({ component: 'mail', minutes: reminder.minutes }, 'reminder due');
    }
  }
  await reschedule(em(), [reminder.meetingId]);
}

/** Schedules reminders for every open meeting that has reminders to come and none scheduled. */
async function sweep(em: () => EntityManager): Promise<void> {
  for (let after = FIRST_ID; ; ) {
    const ids = await new ReminderStore(em()).unscheduled(after, SWEEP_PAGE);
    if (ids.length > 0) {
      await reschedule(em(), ids);
    }
    const last = ids.at(-1);
    if (!last || ids.length < SWEEP_PAGE) {
      return;
    }
    after = last;
  }
}

/** The jobs of reminders: one reminder as it fires, and the hourly sweep. */
export function reminderTasks(em: () => EntityManager, logger: Logger): Record<string, JobHandler> {
  return {
    [REMINDER_TASKS.remind]: (payload) => remind(payload, em, logger),
    [REMINDER_TASKS.sweep]: () => sweep(em),
  };
}
