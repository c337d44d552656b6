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
 * Whether meeting `m` may take time in one of the windows (arrays of their starts and ends, the
 * two last parameters): its span (the whole series) overlaps one, or one of its occurrences was
 * moved into one.
 */
const IN_WINDOWS =
  `exists (select 1 from unnest(?::timestamptz[], ?::timestamptz[]) w("lo", "hi") ` +
  `where m."span" && tstzrange(w."lo", w."hi") or exists (select 1 from ` +
  `"meeting_occurrence_changes" x where x."meeting_id" = m."id" and x."start_time" < w."hi" ` +
  `and x."start_time" + make_interval(mins => m."duration_minutes") > w."lo"))`;

/**
 * The meetings that keep some of the users busy in some of the windows, with whom they keep and
 * their changed occurrences, in one statement: through each user's accepted participations and
 * owned meetings (the owner is an accepted participant too; the union keeps each pair once).
 */
const BUSY =
  `with "kept" as (` +
  `select p."meeting_id", p."user_id" from "participants" p join "meetings" m ` +
  `on m."id" = p."meeting_id" where p."user_id" = any(?::uuid[]) and p."status" = ? ` +
  `and m."status"::text = any(?::text[]) and m."id" <> all(?::uuid[]) and ${IN_WINDOWS} ` +
  `union select m."id", m."owner_id" from "meetings" m where m."owner_id" = any(?::uuid[]) ` +
  `and m."status"::text = any(?::text[]) and m."id" <> all(?::uuid[]) and ${IN_WINDOWS}) ` +
  `select m."id", m."start_time", m."duration_minutes", m."time_zone", m."recurrence", ` +
  `k."users", (select coalesce(json_agg(json_build_object(` +
  `'originalStartTime', c."original_start_time", 'startTime', c."start_time", ` +
  `'cancelled', c."cancelled")), '[]') from "meeting_occurrence_changes" c ` +
  `where c."meeting_id" = m."id") as "edits" ` +
  `from (select "meeting_id", array_agg("user_id"::text) as "users" from "kept" ` +
  `group by "meeting_id") k join "meetings" m on m."id" = k."meeting_id"`;

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
   * The meetings that keep any of `userIds` busy in any of `windows`, leaving out `except` (the
   * meetings whose own conflicts are asked for), in one statement whatever their number.
   */
  async busyMeetings(
    userIds: readonly string[],
    windows: readonly TimeSpan[],
    except: readonly string[] = [],
  ): Promise<BusyMeeting[]> {
    if (userIds.length === 0 || windows.length === 0) {
      return [];
    }
    const los = `{${windows.map((w) => w.start.toISOString()).join(',')}}`;
    const his = `{${windows.map((w) => w.end.toISOString()).join(',')}}`;
    const users = arrayLiteral(userIds);
    const states = arrayLiteral(BUSY_STATES);
    const excluded = arrayLiteral(except);
    const rows = await selectRows(this.em, BUSY, [
      users,
      ParticipantStatus.ACCEPTED,
      states,
      excluded,
      los,
      his,
      users,
      states,
      excluded,
      los,
      his,
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
