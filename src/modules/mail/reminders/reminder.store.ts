import type { EntityManager } from '@mikro-orm/postgresql';
import { addJobsStatement, removeJobsStatement } from '../../../platform/jobs/job-queue';
import { readerOf } from '../../../platform/sql/read-model';
import {
  arrayLiteral,
  byIds,
  executeRows,
  readAll,
  selectByIds,
  selectRows,
} from '../../../platform/sql/rows';
import { Meeting, MeetingStatus, OccurrenceStore } from '../../meeting';
import { reminderJob } from './reminder.jobs';
import type { RemindedMeeting, Reminder, ScheduledReminder } from './reminder.schedule';

/** Reminders scheduled and sent (migration 20261207050000): one row per job key. */
const R = `"mail_reminders"`;
const meetings = readerOf(Meeting);
const MEETINGS = byIds(`select ${meetings.select('m')} from "meetings" m where m."id" {match}`);
const SENT = `select r."job_key" as "key" from ${R} r where r."meeting_id" = any(?::uuid[]) and r."fired_at" is not null`;
const STALE =
  `delete from ${R} r where r."meeting_id" = any(?::uuid[]) and r."fired_at" is null ` +
  `and r."job_key" <> all(?::text[]) returning r."job_key" as "key"`;
const SCHEDULE =
  `insert into ${R} ("job_key", "meeting_id", "occurrence_start", "minutes", "run_at") ` +
  `select s."jobKey", s."meetingId", s."occurrenceStart", s."minutes", s."runAt" ` +
  `from json_to_recordset(?::json) as s("jobKey" text, "meetingId" uuid, ` +
  `"occurrenceStart" timestamptz, "minutes" int, "runAt" timestamptz) ` +
  `on conflict ("job_key") do update set "run_at" = excluded."run_at" ` +
  `where ${R}."fired_at" is null`;
const FIRE = `update ${R} set "fired_at" = ? where "job_key" = ? and "fired_at" is null returning 1`;
const FIRED_AT =
  `select r."occurrence_start" as "start", r."minutes" as "minutes" from ${R} r ` +
  `where r."meeting_id" = ? and r."fired_at" = ?::timestamptz order by r."minutes" desc`;
const OPEN = [MeetingStatus.PENDING, MeetingStatus.CONFIRMED].map((status) => `'${status}'`);
const UNSCHEDULED =
  `select m."id" as "id" from "meetings" m where m."id" > ? ` +
  `and m."status" in (${OPEN.join(', ')}) and cardinality(m."reminder_minutes") > 0 ` +
  `and (m."start_time" > now() or m."recurrence_ends_at" > now() ` +
  `or (m."recurrence" is not null and m."recurrence_ends_at" is null)) ` +
  `and not exists (select 1 from ${R} r where r."meeting_id" = m."id" and r."fired_at" is null ` +
  `and r."run_at" > now() - interval '1 minute') order by m."id" limit ?`;
const PRUNE =
  `delete from ${R} where "job_key" in (select "job_key" from ${R} ` +
  `where "occurrence_start" < ? limit 1000) returning 1`;

/** What a meeting's reminders are now: the meetings looked at, and the reminders they want. */
export interface ReminderPlan {
  meetingIds: readonly string[];
  reminders: readonly ScheduledReminder[];
}

/** Every read and write of reminders, and of their jobs. */
export class ReminderStore {
  constructor(private readonly em: EntityManager) {}

  /** Meetings with their occurrences changed one by one (those gone left out). */
  async meetings(ids: readonly string[]): Promise<RemindedMeeting[]> {
    if (ids.length === 0) {
      return [];
    }
    const found = readAll(meetings, await selectByIds(this.em, MEETINGS, ids));
    const edits = await new OccurrenceStore(this.em).ofMeetings(found.map(({ id }) => id));
    return found.map((meeting) => ({ meeting, edits: edits.get(meeting.id) ?? [] }));
  }

  /** The keys of the reminders of these meetings that were sent. */
  async sent(meetingIds: readonly string[]): Promise<Set<string>> {
    const rows = await selectRows(this.em, SENT, [arrayLiteral(meetingIds)]);
    return new Set(rows.map((row) => String(row['key'])));
  }

  /**
   * Makes the planned reminders the only ones scheduled for its meetings, in the caller's
   * transaction: those no longer wanted (a reschedule, a moved or cancelled occurrence, a
   * cancellation, other minutes) lose their jobs, the wanted ones get theirs (again).
   */
  async replace(plan: ReminderPlan): Promise<void> {
    if (plan.meetingIds.length === 0) {
      return;
    }
    const keys = plan.reminders.map((reminder) => reminder.jobKey);
    const stale = await executeRows(this.em, STALE, [
      arrayLiteral(plan.meetingIds),
      arrayLiteral(keys),
    ]);
    if (stale.length > 0) {
      const { sql, params } = removeJobsStatement(stale.map((row) => String(row['key'])));
      await executeRows(this.em, sql, params);
    }
    if (plan.reminders.length > 0) {
      await executeRows(this.em, SCHEDULE, [JSON.stringify(plan.reminders)]);
      const { sql, params } = addJobsStatement(plan.reminders.map(reminderJob));
      await executeRows(this.em, sql, params);
    }
  }

  /** Records a scheduled reminder sent at `at`; false when it was sent, or unscheduled, since. */
  async fire(jobKey: string, at: string): Promise<boolean> {
    return (await executeRows(this.em, FIRE, [at, jobKey])).length > 0;
  }

  /** The reminders of a meeting sent at `at` (the REMINDER change they logged). */
  async sentAt(meetingId: string, at: string): Promise<Reminder[]> {
    const rows = await selectRows(this.em, FIRED_AT, [meetingId, at]);
    return rows.map((row) => ({
      meetingId,
      occurrenceStart: new Date(row['start'] as string | Date).toISOString(),
      minutes: Number(row['minutes']),
    }));
  }

  /** Open meetings with reminders to come and none scheduled, by id after `after`. */
  async unscheduled(after: string, limit: number): Promise<string[]> {
    const rows = await selectRows(this.em, UNSCHEDULED, [after, limit]);
    return rows.map((row) => String(row['id']));
  }

  /** Deletes up to 1,000 reminders of occurrences that started before `before`. */
  async prune(before: Date): Promise<number> {
    return (await executeRows(this.em, PRUNE, [before])).length;
  }
}
