import type { EntityManager } from '@mikro-orm/postgresql';
import { arrayLiteral, selectRows, toIsoTimestamp } from '../../platform/sql/rows';
import { MeetingStatus, type OccurrenceEdit, ParticipantStatus, type Timing } from '../meeting';
import { AwayKind } from './away-period.entity';

/** An out-of-office period that declines invitations, as a decline reads it. */
export interface DecliningPeriod {
  start: Date;
  end: Date;
  title: string;
}

/** An open invitation whose meeting meets some of the invitee's declining periods. */
export interface AwayInvitation {
  meetingId: string;
  userId: string;
  meeting: Timing & { recurrenceEndsAt: string | null; edits: OccurrenceEdit[] };
  periods: DecliningPeriod[];
}

/** Which invitations a sweep looks at: a few meetings', one user's, or everyone's. */
export type SweepScope = { meetingIds: readonly string[] } | { userId: string } | 'everyone';

/** Invitations one sweep handles at most (the next sweep takes the rest). */
export const SWEEP_LIMIT = 200;

const OPEN_STATES = [MeetingStatus.PENDING, MeetingStatus.CONFIRMED];

/**
 * Unanswered invitations to open meetings whose span (a series': all of it) meets an
 * out-of-office period of the invitee's that declines invitations and has not ended, with the
 * meeting's timing, its changed occurrences and those periods, in one statement.
 */
const declinable = (scope: string): string =>
  `select p."meeting_id", p."user_id", m."start_time", m."duration_minutes", m."time_zone", ` +
  `m."recurrence", m."recurrence_ends_at", (select coalesce(json_agg(json_build_object(` +
  `'originalStartTime', c."original_start_time", 'startTime', c."start_time", ` +
  `'cancelled', c."cancelled")), '[]') from "meeting_occurrence_changes" c ` +
  `where c."meeting_id" = m."id") as "edits", json_agg(json_build_object('start', a."start_time", ` +
  `'end', a."end_time", 'title', a."title") order by a."start_time") as "periods" ` +
  `from "participants" p join "meetings" m on m."id" = p."meeting_id" ` +
  `join "away_periods" a on a."user_id" = p."user_id" ` +
  `where ${scope} and p."status" = ? and m."status"::text = any(?::text[]) and a."kind" = ? ` +
  `and a."decline_invitations" and a."end_time" > now() ` +
  `and tstzrange(a."start_time", a."end_time") && m."span" ` +
  `group by p."meeting_id", p."user_id", m."id" order by p."meeting_id", p."user_id" ` +
  `limit ${SWEEP_LIMIT}`;
const OF_MEETINGS = declinable(`p."meeting_id" = any(?::uuid[])`);
const OF_USER = declinable(`p."user_id" = ?`);
// The placeholder takes a value that is always true, so that every scope's values line up.
const OF_EVERYONE = declinable(`?::boolean`);

const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

/** The reads that declining invitations for people who are away stands on. */
export class AwayDeclineStore {
  constructor(private readonly em: EntityManager) {}

  /** The invitations in `scope` that a declining period may concern (the service decides). */
  async invitations(scope: SweepScope): Promise<AwayInvitation[]> {
    const [sql, key] =
      scope === 'everyone'
        ? [OF_EVERYONE, true]
        : 'userId' in scope
          ? [OF_USER, scope.userId]
          : [OF_MEETINGS, arrayLiteral(scope.meetingIds)];
    const rows = await selectRows(this.em, sql, [
      key,
      ParticipantStatus.NEW,
      arrayLiteral(OPEN_STATES),
      AwayKind.OUT_OF_OFFICE,
    ]);
    return rows.map((row) => ({
      meetingId: row['meeting_id'] as string,
      userId: row['user_id'] as string,
      meeting: {
        startTime: toIsoTimestamp(row['start_time']),
        durationMinutes: Number(row['duration_minutes']),
        timeZone: row['time_zone'] as string,
        recurrence: (row['recurrence'] as string | null) ?? null,
        recurrenceEndsAt:
          row['recurrence_ends_at'] === null ? null : toIsoTimestamp(row['recurrence_ends_at']),
        edits: json<OccurrenceEdit[]>(row['edits']),
      },
      periods: json<Array<{ start: string; end: string; title: string }>>(row['periods']).map(
        (period) => ({
          start: new Date(period.start),
          end: new Date(period.end),
          title: period.title,
        }),
      ),
    }));
  }
}
