import type { EntityManager } from '@mikro-orm/postgresql';
import { arrayLiteral, selectRows, toIsoTimestamp } from '../../platform/sql/rows';
import type { TimeSpan } from '../../platform/shared/time-zone';
import { MeetingStatus, type OccurrenceEdit, ParticipantStatus, type Timing } from '../meeting';

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
 * The meetings that keep some of the users busy between two instants, with whom they keep and their
 * changed occurrences, in one statement: the users' accepted participations (an owner is always an
 * accepted participant, docs/rest-contract.md §5), each meeting looked up by its key and kept if
 * its span (the whole series) overlaps the time, or one of its occurrences was moved into it.
 * Starting from the users is the selective side: a few users' participations (hundreds for the
 * busiest of the bench's 100,000) against every meeting of a window; left to itself, the planner
 * misjudged the span's selectivity and hashed every meeting (9–15 ms against 3–4 ms on the bench
 * database, measured), hence `offset 0`, which keeps the lookup per participation.
 */
const BUSY =
  `with "moved" as (select distinct x."meeting_id" from "meeting_occurrence_changes" x ` +
  `join "meetings" mm on mm."id" = x."meeting_id" where x."start_time" is not null and ` +
  `x."start_time" < ? and x."start_time" + make_interval(mins => mm."duration_minutes") > ?) ` +
  `select m."id", m."start_time", m."duration_minutes", m."time_zone", m."recurrence", ` +
  `array_agg(p."user_id"::text) as "users", (select coalesce(json_agg(json_build_object(` +
  `'originalStartTime', c."original_start_time", 'startTime', c."start_time", ` +
  `'cancelled', c."cancelled")), '[]') from "meeting_occurrence_changes" c ` +
  `where c."meeting_id" = m."id") as "edits" ` +
  `from "participants" p cross join lateral (select m."id", m."start_time", ` +
  `m."duration_minutes", m."time_zone", m."recurrence" from "meetings" m ` +
  `where m."id" = p."meeting_id" and m."status"::text = any(?::text[]) and ` +
  `(m."span" && tstzrange(?, ?) or m."id" in (select "meeting_id" from "moved")) offset 0) m ` +
  `where p."user_id" = any(?::uuid[]) and p."status" = ? ` +
  `group by m."id", m."start_time", m."duration_minutes", m."time_zone", m."recurrence"`;

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
   * The meetings that may keep any of `userIds` busy in any of `windows` (those between the
   * first window's start and the last one's end), in one statement whatever their number.
   */
  async busyMeetings(
    userIds: readonly string[],
    windows: readonly TimeSpan[],
  ): Promise<BusyMeeting[]> {
    if (userIds.length === 0 || windows.length === 0) {
      return [];
    }
    // One span around every window: the service keeps what falls in each.
    const from = new Date(Math.min(...windows.map((w) => w.start.getTime()))).toISOString();
    const to = new Date(Math.max(...windows.map((w) => w.end.getTime()))).toISOString();
    const rows = await selectRows(this.em, BUSY, [
      to,
      from,
      arrayLiteral(BUSY_STATES),
      from,
      to,
      arrayLiteral(userIds),
      ParticipantStatus.ACCEPTED,
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
