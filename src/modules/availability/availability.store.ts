import type { EntityManager } from '@mikro-orm/postgresql';
import { arrayLiteral, selectRows, toIsoTimestamp } from '../../platform/sql/rows';
import type { TimeSpan } from '../../platform/shared/time-zone';
import { MeetingStatus, type OccurrenceEdit, ParticipantStatus, type Timing } from '../meeting';
import type { AwayKind } from './away-period.entity';

/** A meeting that keeps some of the asked users busy: when it happens, and whom it keeps. */
export interface BusyMeeting extends Timing {
  id: string;
  /** The asked users who own or have accepted it. */
  userIds: string[];
  /** The asked users invited who have not answered (when asked for: free/busy's TENTATIVE). */
  tentativeUserIds: string[];
  /** Its occurrences changed one by one. */
  edits: OccurrenceEdit[];
}

/** A span one of the asked users is away. */
export interface AwayTime extends TimeSpan {
  userId: string;
  kind: AwayKind;
}

/** What keeps the asked users busy: meetings and time away. */
export interface BusyTime {
  meetings: BusyMeeting[];
  away: AwayTime[];
}

/** The meetings that make a user busy: pending or confirmed ones they own or have accepted. */
const BUSY_STATES = [MeetingStatus.PENDING, MeetingStatus.CONFIRMED];

/**
 * The meetings that keep some of the users busy between two instants, with whom they keep and their
 * changed occurrences, then the users' away periods then, in one statement: the users' accepted
 * participations (and open invitations, when asked: the second answer given), each meeting looked
 * up by its key and kept if its span (the whole series) overlaps the time, or one of its
 * occurrences was moved into it (an owner is always an accepted participant, docs/rest-contract.md
 * §5). Starting from the users is the selective side: a few users' participations (hundreds for
 * the busiest of the bench's 100,000) against every meeting of a window; left to itself, the
 * planner misjudged the span's selectivity and hashed every meeting (9–15 ms against 3–4 ms on the
 * bench database, measured), hence `offset 0`, which keeps the lookup per participation.
 */
const BUSY =
  `with "moved" as (select distinct x."meeting_id" from "meeting_occurrence_changes" x ` +
  `join "meetings" mm on mm."id" = x."meeting_id" where x."start_time" is not null and ` +
  `x."start_time" < ? and x."start_time" + make_interval(mins => mm."duration_minutes") > ?) ` +
  `select m."id", m."start_time", m."duration_minutes", m."time_zone", m."recurrence", ` +
  `array_agg(p."user_id"::text) filter (where p."status" = ?) as "users", ` +
  `array_agg(p."user_id"::text) filter (where p."status" <> ?) as "tentative", ` +
  `(select coalesce(json_agg(json_build_object(` +
  `'originalStartTime', c."original_start_time", 'startTime', c."start_time", ` +
  `'cancelled', c."cancelled")), '[]') from "meeting_occurrence_changes" c ` +
  `where c."meeting_id" = m."id") as "edits", null::timestamptz as "end_time", ` +
  `null::text as "kind" ` +
  `from "participants" p cross join lateral (select m."id", m."start_time", ` +
  `m."duration_minutes", m."time_zone", m."recurrence" from "meetings" m ` +
  `where m."id" = p."meeting_id" and m."status"::text = any(?::text[]) and ` +
  `(m."span" && tstzrange(?, ?) or m."id" in (select "meeting_id" from "moved")) offset 0) m ` +
  `where p."user_id" = any(?::uuid[]) and p."status"::text = any(?::text[]) ` +
  `group by m."id", m."start_time", m."duration_minutes", m."time_zone", m."recurrence" ` +
  `union all select a."id", a."start_time", null, null, null, array[a."user_id"::text], null, ` +
  `null, a."end_time", a."kind"::text from "away_periods" a ` +
  `where a."user_id" = any(?::uuid[]) and a."end_time" > ? and a."start_time" < ?`;

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
   * first window's start and the last one's end), with their open invitations too when
   * `tentative`, and the users' time away then, in one statement whatever their number.
   */
  async busyTime(
    userIds: readonly string[],
    windows: readonly TimeSpan[],
    { tentative = false }: { tentative?: boolean } = {},
  ): Promise<BusyTime> {
    if (userIds.length === 0 || windows.length === 0) {
      return { meetings: [], away: [] };
    }
    // One span around every window: the service keeps what falls in each.
    const from = new Date(Math.min(...windows.map((w) => w.start.getTime()))).toISOString();
    const to = new Date(Math.max(...windows.map((w) => w.end.getTime()))).toISOString();
    const users = arrayLiteral(userIds);
    const answers = tentative
      ? [ParticipantStatus.ACCEPTED, ParticipantStatus.NEW]
      : [ParticipantStatus.ACCEPTED];
    const rows = await selectRows(this.em, BUSY, [
      to,
      from,
      ParticipantStatus.ACCEPTED,
      ParticipantStatus.ACCEPTED,
      arrayLiteral(BUSY_STATES),
      from,
      to,
      users,
      arrayLiteral(answers),
      users,
      from,
      to,
    ]);
    const found: BusyTime = { meetings: [], away: [] };
    for (const row of rows) {
      if (row['kind'] !== null && row['kind'] !== undefined) {
        found.away.push({
          userId: textArray(row['users'])[0] as string,
          start: new Date(toIsoTimestamp(row['start_time'])),
          end: new Date(toIsoTimestamp(row['end_time'])),
          kind: row['kind'] as AwayKind,
        });
        continue;
      }
      found.meetings.push({
        id: row['id'] as string,
        startTime: toIsoTimestamp(row['start_time']),
        durationMinutes: Number(row['duration_minutes']),
        timeZone: row['time_zone'] as string,
        recurrence: (row['recurrence'] as string | null) ?? null,
        userIds: textArray(row['users']),
        tentativeUserIds: textArray(row['tentative']),
        edits: (typeof row['edits'] === 'string'
          ? JSON.parse(row['edits'])
          : row['edits']) as OccurrenceEdit[],
      });
    }
    return found;
  }
}
