import type { EntityManager } from '@mikro-orm/postgresql';
import type { TimeSpan } from '../../platform/shared/time-zone';
import {
  arrayLiteral,
  executeRows,
  type Row,
  selectRows,
  toIsoTimestamp,
} from '../../platform/sql/rows';
import {
  RESOURCES,
  type ResourceFilter,
  type ResourceRecord,
  filterSql,
  resources,
} from './resource.store';

/** The table of which resources each meeting books, and how far ahead a series is booked. */
export const MEETING_RESOURCES = 'meeting_resources';
/** The table of booked time: one row per resource and occurrence (merged), never overlapping. */
export const RESOURCE_BOOKINGS = 'resource_bookings';
/** The exclusion constraint that keeps a resource's bookings apart. */
export const NO_OVERLAP = 'resource_bookings_no_overlap';

/** A resource with the time it is booked within a window (sorted, merged by the constraint). */
export interface ResourceTime {
  resource: ResourceRecord;
  busy: TimeSpan[];
}

const MR = `"${MEETING_RESOURCES}"`;
const RB = `"${RESOURCE_BOOKINGS}"`;

/**
 * The resources of `attached` locked for this transaction, in id order, before their bookings
 * are written: bookings of one resource take turns, so a booking that loses to an overlapping one
 * sees it committed and fails on the constraint (two inserts that each waited for the other's
 * would end in a deadlock instead).
 */
const lockedFrom = (attached: string) =>
  `"locked" as (select r."id" from ${RESOURCES} r where r."id" in (select "resource_id" from ` +
  `"${attached}") order by r."id" for no key update)`;

/** Inserts a booking of each locked resource for each span given (starts, ends), earliest first. */
const BOOK =
  `insert into ${RB} ("resource_id", "meeting_id", "during") select l."id", ?::uuid, ` +
  `tstzrange(s."start_time", s."end_time") from "locked" l cross join ` +
  `unnest(?::timestamptz[], ?::timestamptz[]) as s("start_time", "end_time") ` +
  `order by s."start_time", l."id"`;

const ATTACH =
  `with "attached" as (insert into ${MR} ("meeting_id", "resource_id", "booked_until") ` +
  `select ?::uuid, unnest(?::uuid[]), ?::timestamptz returning "resource_id"), ` +
  `${lockedFrom('attached')} ${BOOK}`;
const REBOOK =
  `with "attached" as (update ${MR} set "booked_until" = ?::timestamptz where "meeting_id" = ? ` +
  `returning "resource_id"), ${lockedFrom('attached')} ${BOOK}`;
const RELEASE =
  `with "gone" as (delete from ${RB} where "meeting_id" = ? and upper("during") > ?::timestamptz) ` +
  `select "resource_id" from ${MR} where "meeting_id" = ?`;
const DETACH =
  `with "gone" as (delete from ${RB} where "meeting_id" = ? and "resource_id" = ?) ` +
  `delete from ${MR} where "meeting_id" = ? and "resource_id" = ? returning "resource_id"`;
const OF_MEETINGS =
  `select mr."meeting_id" as "of_meeting", ${resources.select('r')} from ${MR} mr ` +
  `join ${RESOURCES} r on r."id" = mr."resource_id" where mr."meeting_id" = any(?::uuid[]) ` +
  `order by mr."meeting_id", mr."created_at", r."id"`;
const DUE =
  `select "meeting_id" from ${MR} where "booked_until" < ?::timestamptz ` +
  `group by "meeting_id" order by min("booked_until") limit ?`;
/** Each resource's booked time within a window, as `[[start, end], …]`. */
const BUSY_IN =
  `(select coalesce(json_agg(json_build_array(lower(b."during"), upper(b."during")) ` +
  `order by lower(b."during")), '[]') from ${RB} b where b."resource_id" = r."id" and ` +
  `b."during" && tstzrange(?::timestamptz, ?::timestamptz)) as "busy"`;

const starts = (spans: readonly TimeSpan[]) =>
  arrayLiteral(spans.map((s) => s.start.toISOString()));
const ends = (spans: readonly TimeSpan[]) => arrayLiteral(spans.map((s) => s.end.toISOString()));
const instant = (date: Date | null) => date?.toISOString() ?? null;

function timeOf(row: Row): ResourceTime {
  const raw = typeof row['busy'] === 'string' ? JSON.parse(row['busy']) : row['busy'];
  return {
    resource: resources.read(row) as ResourceRecord,
    busy: (raw as [string, string][]).map(([start, end]) => ({
      start: new Date(toIsoTimestamp(start)),
      end: new Date(toIsoTimestamp(end)),
    })),
  };
}

/**
 * Meetings' bookings of resources: which resources a meeting books (meeting_resources), and the
 * time it holds them (resource_bookings, whose exclusion constraint refuses an overlap). Writes
 * run in the meeting's transaction, after its row is locked.
 */
export class BookingStore {
  constructor(private readonly em: EntityManager) {}

  /**
   * Books `resourceIds` for a meeting at `spans` (sorted, merged), a series until `bookedUntil`
   * (null: all of it). Fails on NO_OVERLAP when one of them is booked then.
   */
  async attach(
    meetingId: string,
    resourceIds: readonly string[],
    spans: readonly TimeSpan[],
    bookedUntil: Date | null,
  ): Promise<void> {
    await executeRows(this.em, ATTACH, [
      meetingId,
      arrayLiteral(resourceIds),
      instant(bookedUntil),
      meetingId,
      starts(spans),
      ends(spans),
    ]);
  }

  /**
   * Drops a meeting's bookings that end after `from` (all of them: null), answering the resources
   * it books: the first half of booking it again after its time changed (or freeing them).
   */
  async release(meetingId: string, from: Date | null): Promise<string[]> {
    const rows = await executeRows(this.em, RELEASE, [
      meetingId,
      instant(from) ?? '-infinity',
      meetingId,
    ]);
    return rows.map((row) => String(row['resource_id']));
  }

  /** Books every resource the meeting books at `spans` again (after `release`); see attach. */
  async rebook(
    meetingId: string,
    spans: readonly TimeSpan[],
    bookedUntil: Date | null,
  ): Promise<void> {
    await executeRows(this.em, REBOOK, [
      instant(bookedUntil),
      meetingId,
      meetingId,
      starts(spans),
      ends(spans),
    ]);
  }

  /**
   * Books the meeting's resources at `spans` past its horizon, up to `bookedUntil`: a span one of
   * them is booked for already by another meeting is left to that one (the first booking keeps it).
   */
  async extend(
    meetingId: string,
    spans: readonly TimeSpan[],
    bookedUntil: Date | null,
  ): Promise<void> {
    await executeRows(this.em, `${REBOOK} on conflict do nothing`, [
      instant(bookedUntil),
      meetingId,
      meetingId,
      starts(spans),
      ends(spans),
    ]);
  }

  /** Drops a resource from a meeting with all its bookings; false when the meeting had none. */
  async detach(meetingId: string, resourceId: string): Promise<boolean> {
    const rows = await executeRows(this.em, DETACH, [meetingId, resourceId, meetingId, resourceId]);
    return rows.length > 0;
  }

  /** Each meeting's resources, in the order they were added, in one statement. */
  async ofMeetings(meetingIds: readonly string[]): Promise<Map<string, ResourceRecord[]>> {
    const found = new Map<string, ResourceRecord[]>();
    if (meetingIds.length === 0) {
      return found;
    }
    const rows = await selectRows(this.em, OF_MEETINGS, [arrayLiteral(meetingIds)]);
    for (const row of rows) {
      const resource = resources.read(row) as ResourceRecord;
      const meetingId = String(row['of_meeting']);
      found.set(meetingId, [...(found.get(meetingId) ?? []), resource]);
    }
    return found;
  }

  /** Meetings (at most `limit`) whose series are booked only until before `until`. */
  async due(until: Date, limit: number): Promise<string[]> {
    const rows = await selectRows(this.em, DUE, [until.toISOString(), limit]);
    return rows.map((row) => String(row['meeting_id']));
  }

  /** Resources by id with their booked time within `window`, in one statement. */
  async timeOf(resourceIds: readonly string[], window: TimeSpan): Promise<ResourceTime[]> {
    if (resourceIds.length === 0) {
      return [];
    }
    const rows = await selectRows(
      this.em,
      `select ${resources.select('r')}, ${BUSY_IN} from ${RESOURCES} r where r."id" = any(?::uuid[])`,
      [window.start.toISOString(), window.end.toISOString(), arrayLiteral(resourceIds)],
    );
    return rows.map(timeOf);
  }

  /**
   * The resources a filter takes that hold at least `minCapacity`, smallest first (then by name),
   * at most `limit`, with their booked time within `window`, in one statement.
   */
  async fitting(
    filter: ResourceFilter,
    minCapacity: number,
    window: TimeSpan,
    limit: number,
  ): Promise<ResourceTime[]> {
    const { where, params } = filterSql(filter);
    const rows = await selectRows(
      this.em,
      `select ${resources.select('r')}, ${BUSY_IN} from ${RESOURCES} r where ${where} and ` +
        `r."capacity" >= ? order by r."capacity", r."name", r."id" limit ?`,
      [window.start.toISOString(), window.end.toISOString(), ...params, minCapacity, limit],
    );
    return rows.map(timeOf);
  }
}
