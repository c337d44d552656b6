import type { EntityManager } from '@mikro-orm/postgresql';
import { arrayLiteral, selectRows, toIsoTimestamp } from '../../platform/sql/rows';
import type { TimeSpan } from '../../platform/shared/time-zone';
import { MeetingStatus } from '../meeting/meeting.entity';
import type { OccurrenceEdit } from '../meeting/occurrences';
import type { Timing } from '../meeting/recurrence';
import { ParticipantStatus } from '../meeting/participant.entity';

/** A meeting that keeps some of the asked users busy: when it happens, and whom it keeps. */
export interface BusyMeeting extends Timing {
  id: string;
  /** The asked users who own or have accepted it. */
  userIds: string[];
  /** Its occurrences changed one by one. */
  edits: OccurrenceEdit[];
}

/** The meetings that make a user busy: pending or confirmed ones they own or have accepted. */
const BUSY_STATES = [MeetingStatus.PENDING, MeetingStatus.CONFIRMED];

/**
 * The meetings that keep some of the users busy in some of the windows (a multirange), with whom
 * they keep and their changed occurrences, in one statement: the users' accepted participations
 * (an owner is always an accepted participant, CONTRACT.md §5) in meetings whose span overlaps a
 * window, or one of whose occurrences was moved into one. `span && multirange` is the GiST
 * index's operator, so the planner may start from the window or from the users, by its estimates.
 */
const BUSY =
  `with "moved" as (select distinct x."meeting_id" from "meeting_occurrence_changes" x ` +
  `join "meetings" mm on mm."id" = x."meeting_id" where x."start_time" is not null and ` +
  `tstzrange(x."start_time", x."start_time" + make_interval(mins => mm."duration_minutes")) ` +
  `&& ?::tstzmultirange), ` +
  `"kept" as (select p."meeting_id", array_agg(p."user_id"::text) as "users" ` +
  `from "participants" p join "meetings" m on m."id" = p."meeting_id" ` +
  `where p."user_id" = any(?::uuid[]) and p."status" = ? and m."status"::text = any(?::text[]) ` +
  `and (m."span" && ?::tstzmultirange or m."id" in (select "meeting_id" from "moved")) ` +
  `group by p."meeting_id") ` +
  `select m."id", m."start_time", m."duration_minutes", m."time_zone", m."recurrence", ` +
  `k."users", (select coalesce(json_agg(json_build_object(` +
  `'originalStartTime', c."original_start_time", 'startTime', c."start_time", ` +
  `'cancelled', c."cancelled")), '[]') from "meeting_occurrence_changes" c ` +
  `where c."meeting_id" = m."id") as "edits" ` +
  `from "kept" k join "meetings" m on m."id" = k."meeting_id"`;

/** Windows as a PostgreSQL multirange literal. */
const multirange = (windows: readonly TimeSpan[]): string =>
  `{${windows.map((w) => `[${w.start.toISOString()},${w.end.toISOString()})`).join(',')}}`;

/** pg answers a text[] column as an array, or (text mode) as its literal `{a,b}`. */
function textArray(value: unknown): string[] {
  if (Array.isArray(value)) {
    return value as string[];
  }
  const text = String(value ?? '{}');
  return text.length <= 2 ? [] : text.slice(1, -1).split(',');
}

/** The reads free/busy, conflicts and suggestions stand on. */
export class AvailabilityStore {
  constructor(private readonly em: EntityManager) {}

  /**
   * The meetings that keep any of `userIds` busy in any of `windows`, in one statement whatever
   * their number.
   */
  async busyMeetings(
    userIds: readonly string[],
    windows: readonly TimeSpan[],
  ): Promise<BusyMeeting[]> {
    if (userIds.length === 0 || windows.length === 0) {
      return [];
    }
    const inWindows = multirange(windows);
    const rows = await selectRows(this.em, BUSY, [
      inWindows,
      arrayLiteral(userIds),
      ParticipantStatus.ACCEPTED,
      arrayLiteral(BUSY_STATES),
      inWindows,
    ]);
    return rows.map((row) => ({
      id: row['id'] as string,
      startTime: toIsoTimestamp(row['start_time']),
      durationMinutes: Number(row['duration_minutes']),
      timeZone: row['time_zone'] as string,
      recurrence: (row['recurrence'] as string | null) ?? null,
      userIds: textArray(row['users']),
      edits: (typeof row['edits'] === 'string'
        ? JSON.parse(row['edits'])
        : row['edits']) as OccurrenceEdit[],
    }));
  }
}
