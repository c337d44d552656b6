import type { EntityManager } from '@mikro-orm/postgresql';
import {
  readAll,
  arrayLiteral,
  byIds,
  executeRows,
  selectByIds,
  selectRows,
} from '../../platform/sql/rows';
import {
  idIn,
  insertOf,
  type ReadModel,
  readerOf,
  toReadModel,
  updateOf,
} from '../../platform/sql/read-model';
import {
  countList,
  type KeysetOrder,
  readSlice,
  type Slice,
  type SliceRequest,
} from '../../platform/sql/keyset';
import { type Page, pageClause, pageParams } from '../../platform/shared/pagination';
import { Participant, ParticipantStatus } from './participants/participant.entity';
import {
  type MeetingParticipants,
  PARTICIPANT_ORDER_KEYS,
  type ParticipantRecord,
  type ParticipantSlice,
} from './participants/participant.store';
import { User, type UserRecord } from '../user';
import { Meeting, MeetingRole, REVISED_FIELDS } from './meeting.entity';
import type { SettableField } from './meeting.inputs';
import type { MeetingFilter } from './meeting.filter';
import { inKeyOrder, KnownLoader } from '../../platform/shared/known-loader';
import type { ParticipantStore } from './participants/participant.store';
import DataLoader from 'dataloader';

/** A meeting as queries and mutations answer it. */
export type MeetingRecord = ReadModel<Meeting>;

/** The fields a new meeting is written with: what its creator sets, and its owner. */
export type NewMeeting = Pick<Meeting, SettableField | 'ownerId' | 'recurrenceEndsAt'>;

export type { MeetingFilter } from './meeting.filter';

/** What a write may change of a meeting (its id, owner and creation stay). */
export type MeetingChanges = Partial<
  Pick<MeetingRecord, SettableField | 'status' | 'recurrenceEndsAt'>
>;

/** A meeting locked for a write, with its participants in the order they were added. */
export interface LockedMeeting {
  meeting: MeetingRecord;
  participants: ParticipantRecord[];
}

const meetings = readerOf(Meeting);
const joinedParticipants = readerOf(Participant, 'p_');
const joinedUsers = readerOf(User, 'u_');
/** The meeting a row of {@link WITH_PARTICIPANTS} belongs to. */
const OF_MEETING = 'of_meeting';
/**
 * A meeting's row, then one row per participant with its user, meeting by meeting: the meeting's
 * columns are sent once, not repeated on every participant's row as a join would (a 50-participant
 * meeting's rows carried 600 copies of 12 columns, each parsed into a string).
 */
const WITH_PARTICIPANTS = byIds(
  `select ${meetings.select('m')}, ${joinedParticipants.none()}, ${joinedUsers.none()}, ` +
    `m."id" as "${OF_MEETING}" from "meetings" m where m."id" {match} ` +
    `union all select ${meetings.none()}, ${joinedParticipants.select('p')}, ` +
    `${joinedUsers.select('u')}, p."meeting_id" from "participants" p ` +
    `left join "users" u on u."id" = p."user_id" where p."meeting_id" {match} ` +
    `order by "${OF_MEETING}", ` +
    // The meeting's own row, without a participant, first.
    PARTICIPANT_ORDER_KEYS.map((key) => `${joinedParticipants.output(key)} nulls first`).join(', '),
);
const LOCK = `select ${meetings.select('m')} from "meetings" m where m."id" = ? for update`;
const MINE =
  `select ${meetings.select('m')} from "meetings" m where m."owner_id" = ? or m."id" in ` +
  `(select p."meeting_id" from "participants" p where p."user_id" = ? and p."status" = ?) ` +
  `order by m."start_time" desc, m."id" desc`;

const byStart = (direction: 'asc' | 'desc'): KeysetOrder<MeetingRecord> => ({
  columns: [
    { sql: 'm."start_time"', key: 'startTime', type: 'timestamptz' },
    { sql: 'm."id"', key: 'id', type: 'uuid' },
  ],
  direction,
});
const ORDERS = { asc: byStart('asc'), desc: byStart('desc') };

/** The caller's meetings under a filter: `p` is the caller's own participant row, if any. */
function callersMeetings(userId: string, filter: MeetingFilter) {
  const conditions = ['(m."owner_id" = ? or p."id" is not null)'];
  const params: unknown[] = [userId, userId];
  const roles = filter.callerRoles ?? [];
  if (roles.length > 0) {
    // A guest's role is named by their answer (MeetingRole's values are participant statuses).
    const answers = roles.filter((role) => role !== MeetingRole.OWNER);
    const either: string[] = [];
    if (roles.includes(MeetingRole.OWNER)) {
      either.push('m."owner_id" = ?');
      params.push(userId);
    }
    if (answers.length > 0) {
      either.push('(m."owner_id" <> ? and p."status"::text = any(?::text[]))');
      params.push(userId, arrayLiteral(answers));
    }
    conditions.push(`(${either.join(' or ')})`);
  }
  if (filter.states && filter.states.length > 0) {
    conditions.push('m."status"::text = any(?::text[])');
    params.push(arrayLiteral(filter.states));
  }
  if (filter.startsAfter) {
    conditions.push('m."start_time" >= ?::timestamptz');
    params.push(filter.startsAfter.toISOString());
  }
  if (filter.startsBefore) {
    conditions.push('m."start_time" < ?::timestamptz');
    params.push(filter.startsBefore.toISOString());
  }
  return {
    select:
      `select ${meetings.select('m')} from "meetings" m left join "participants" p ` +
      `on p."meeting_id" = m."id" and p."user_id" = ?`,
    where: conditions.join(' and '),
    params,
  };
}

/** Every read and write of meetings. */
export class MeetingStore {
  constructor(private readonly em: EntityManager) {}

  /**
   * Meetings by id with their participants and those participants' users, in one query: who may
   * see a meeting depends on them, and a meeting is rarely shown without them.
   */
  async withParticipants(
    ids: readonly string[],
  ): Promise<{ meetings: MeetingRecord[] } & MeetingParticipants> {
    const rows = await selectByIds(this.em, WITH_PARTICIPANTS, ids);
    const found = new Map<string, MeetingRecord>();
    const byMeeting = new Map<string, ParticipantRecord[]>();
    for (const row of rows) {
      const id = row[OF_MEETING] as string;
      const meeting = meetings.read(row);
      if (meeting) {
        found.set(id, meeting);
        byMeeting.set(id, []);
        continue;
      }
      const participant = joinedParticipants.read(row);
      if (participant) {
        byMeeting.get(id)?.push(participant);
      }
    }
    return { meetings: [...found.values()], byMeeting, users: readAll(joinedUsers, rows) };
  }

  /** Meetings a user owns or has accepted, latest start first. */
  async ownedOrAccepted(userId: string, page: Page): Promise<MeetingRecord[]> {
    const rows = await selectRows(this.em, `${MINE}${pageClause(page)}`, [
      userId,
      userId,
      ParticipantStatus.ACCEPTED,
      ...pageParams(page),
    ]);
    return readAll(meetings, rows);
  }

  /** A slice of the meetings a user owns or is invited to, by start time, and their count. */
  async slice(
    userId: string,
    filter: MeetingFilter,
    request: SliceRequest,
  ): Promise<{ slice: Slice<MeetingRecord>; count: () => Promise<number> }> {
    const query = callersMeetings(userId, filter);
    const slice = await readSlice(this.em, query, ORDERS[filter.order ?? 'asc'], meetings, request);
    return { slice, count: () => countList(this.em, query) };
  }

  /**
   * Locks a meeting's row until the transaction ends and reads it; null if there is no such
   * meeting. Its participants are read by the next statement (see ParticipantStore.ofLocked): one
   * statement reads with the snapshot it started with, so participants joined to a row whose lock
   * it waited for would be read as they were before the transaction holding the lock committed.
   */
  async lock(meetingId: string): Promise<MeetingRecord | null> {
    const [row] = await selectRows(this.em, LOCK, [meetingId]);
    return row ? meetings.read(row) : null;
  }

  /**
   * Writes the changes that differ from the meeting as it is, with a new `updatedAt`, and answers
   * the meeting as it now is; changing nothing writes nothing, unless `touch` asks for a new
   * `updatedAt` anyway (what changed is stored beside the meeting's row: an occurrence). A change
   * of what calendars show ({@link REVISED_FIELDS}), or a touch, is a new revision (`sequence`).
   * The meeting is locked (read by `lock`), so the revision counted on is the stored one.
   */
  async update(
    meeting: MeetingRecord,
    changes: MeetingChanges,
    { touch = false } = {},
  ): Promise<MeetingRecord> {
    const changed: MeetingChanges = {};
    for (const [key, value] of Object.entries(changes) as [keyof MeetingChanges, unknown][]) {
      if (value !== undefined && value !== meeting[key]) {
        Object.assign(changed, { [key]: value });
      }
    }
    if (Object.keys(changed).length === 0 && !touch) {
      return meeting;
    }
    const revised = touch || REVISED_FIELDS.some((field) => field in changed);
    const written: Partial<MeetingRecord> = {
      ...changed,
      updatedAt: new Date().toISOString(),
      ...(revised ? { sequence: meeting.sequence + 1 } : {}),
    };
    const updated: MeetingRecord = { ...meeting, ...written };
    const { sql, params } = updateOf(Meeting, written, idIn([meeting.id]));
    await executeRows(this.em, sql, params);
    return updated;
  }

  /** Writes a new meeting, with the entity's defaults for what `fields` leaves out. */
  async create(fields: NewMeeting): Promise<MeetingRecord> {
    const meeting = toReadModel(Object.assign(new Meeting(), fields));
    const { sql, params } = insertOf(Meeting, meeting);
    await executeRows(this.em, sql, params);
    return meeting;
  }
}

/**
 * A request's loaders of meetings and their participants. Reads that bring related records along
 * hand them to their loaders here: a meeting's participants, and their users (`primeUsers`).
 */
export function meetingLoaders(
  stores: { readonly meetings: MeetingStore; readonly participants: ParticipantStore },
  primeUsers: (records: readonly UserRecord[]) => void,
) {
  const participantsByMeeting = new KnownLoader<string, ParticipantRecord[]>(async (ids) => {
    const found = await stores.participants.ofMeetings(ids);
    primeUsers(found.users);
    return ids.map((id) => found.byMeeting.get(id) ?? []);
  });
  const meetings = new KnownLoader<string, MeetingRecord | null>(async (ids) => {
    const found = await stores.meetings.withParticipants(ids);
    primeUsers(found.users);
    for (const [meetingId, participants] of found.byMeeting) {
      participantsByMeeting.prime(meetingId, participants);
    }
    return inKeyOrder(ids, found.meetings);
  });
  const connections = participantConnectionLoaders(stores, primeUsers);
  return {
    ...connections,
    meetings,
    participantsByMeeting,
    /** Drops cached reads of a meeting the request has just changed. */
    forgetMeeting(meetingId: string): void {
      meetings.clear(meetingId);
      participantsByMeeting.clear(meetingId);
      // Keyed by meeting and arguments: a write is rare enough to forget every slice read.
      connections.participantSlices.clearAll();
      connections.participantCounts.clearAll();
    },
  };
}

/** Which participants of a meeting a connection lists: some answers (null: all). */
export interface ParticipantListKey {
  meetingId: string;
  statuses: readonly ParticipantStatus[] | null;
}

/** A slice of a meeting's participants, as a connection field asks for it. */
export interface ParticipantSliceKey extends ParticipantListKey {
  request: SliceRequest;
}

/** What a key asks for besides its meeting: keys alike in this are read by one statement. */
const filterOf = (key: ParticipantListKey): string => JSON.stringify(key.statuses ?? []);
const sliceOf = ({ statuses, request }: ParticipantSliceKey): string =>
  JSON.stringify([
    statuses ?? [],
    request.first ?? null,
    request.after ?? null,
    request.last ?? null,
    request.before ?? null,
  ]);

/**
 * Answers each key through `read`, one call per group of keys that differ only by meeting: a list
 * field under a list of meetings costs one statement per level, not one per meeting. A group that
 * fails (a foreign cursor) fails its own keys only.
 */
function byGroup<K extends ParticipantListKey, V>(
  groupOf: (key: K) => string,
  read: (meetingIds: string[], sample: K) => Promise<Map<string, V>>,
): DataLoader.BatchLoadFn<K, V> {
  return async (keys) => {
    const groups = new Map<string, K[]>();
    for (const key of keys) {
      const group = groups.get(groupOf(key));
      if (group) {
        group.push(key);
      } else {
        groups.set(groupOf(key), [key]);
      }
    }
    const answers = new Map<K, V | Error>();
    await Promise.all(
      [...groups.values()].map(async (group) => {
        const ids = [...new Set(group.map((key) => key.meetingId))];
        try {
          const found = await read(ids, group[0] as K);
          for (const key of group) {
            answers.set(key, found.get(key.meetingId) as V);
          }
        } catch (error) {
          for (const key of group) {
            answers.set(key, error as Error);
          }
        }
      }),
    );
    return keys.map((key) => answers.get(key) as V | Error);
  };
}

/**
 * The loaders of meetings' participant connections: slices, and totals (read only when a client
 * selects `totalCount`). Users read along with a slice are handed to `primeUsers`.
 */
export function participantConnectionLoaders(
  stores: { readonly participants: ParticipantStore },
  primeUsers: (users: readonly UserRecord[]) => void,
) {
  return {
    participantSlices: new DataLoader<ParticipantSliceKey, ParticipantSlice, string>(
      byGroup(sliceOf, async (ids, { statuses, request }) => {
        const found = await stores.participants.slicesOfMeetings(ids, statuses, request);
        for (const slice of found.values()) {
          primeUsers(slice.users);
        }
        return found;
      }),
      { cacheKeyFn: (key) => `${key.meetingId} ${sliceOf(key)}` },
    ),
    participantCounts: new DataLoader<ParticipantListKey, number, string>(
      byGroup(filterOf, (ids, { statuses }) => stores.participants.countsOfMeetings(ids, statuses)),
      { cacheKeyFn: (key) => `${key.meetingId} ${filterOf(key)}` },
    ),
  };
}

/** A request's loaders of meetings and their participants (meetingLoaders). */
export type MeetingLoaders = ReturnType<typeof meetingLoaders>;
