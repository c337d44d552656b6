import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  readAll,
  arrayLiteral,
  byIds,
  executeRows,
  selectByIds,
  selectRows,
} from '../../../platform/sql/rows';
import {
  idIn,
  insertOf,
  type ReadModel,
  readerOf,
  tableOf,
  updateOf,
} from '../../../platform/sql/read-model';
import {
  byCreation,
  countList,
  countLists,
  type ParentListQuery,
  readSlice,
  readSlices,
  type Slice,
  type SliceRequest,
} from '../../../platform/sql/keyset';
import { type Page, pageClause, pageParams } from '../../../platform/shared/pagination';
import { MeetingStatus } from '../meeting.entity';
import { User, type UserRecord, visibleUserSql } from '../../user';
import { Participant, ParticipantStatus } from './participant.entity';

/** A participant as queries and mutations answer it. */
export type ParticipantRecord = ReadModel<Participant>;

/** The participants of meetings, each meeting's in the order they were added, and their users. */
export interface MeetingParticipants {
  byMeeting: Map<string, ParticipantRecord[]>;
  users: UserRecord[];
}

const participants = readerOf(Participant);

/** Participants are shown in the order they were added (the owner first), then by id. */
export const PARTICIPANT_ORDER_KEYS = ['createdAt', 'id'] as const;

/** {@link PARTICIPANT_ORDER_KEYS} as the columns of the participants table `alias`. */
export const PARTICIPANT_ORDER = (alias: string): string =>
  PARTICIPANT_ORDER_KEYS.map((key) => participants.column(key, alias)).join(', ');

/** Meetings that still wait for answers. */
const OPEN_STATUSES = [MeetingStatus.PENDING, MeetingStatus.CONFIRMED];

const joinedUsers = readerOf(User, 'u_');
// By the ids ({keys}): a feed reads the participants of hundreds of meetings at once.
const OF_MEETINGS = byIds(
  `select ${participants.select('p')}, ${joinedUsers.select('u')} from {keys} cross join lateral ` +
    `(select * from "participants" p where p."meeting_id" = keys."key" ` +
    `order by ${PARTICIPANT_ORDER('p')}) p ` +
    `join "users" u on u."id" = p."user_id" order by p."meeting_id", ${PARTICIPANT_ORDER('p')}`,
);
const OF_LOCKED =
  `select ${participants.select('p')} from "participants" p where p."meeting_id" = ? ` +
  `order by ${PARTICIPANT_ORDER('p')}`;
// Every participant row carries the user, or none (not there, or not visible).
const OF_LOCKED_WITH_USER =
  `select ${participants.select('p')}, ${joinedUsers.select('u')} ` +
  `from (select ?::uuid as "meeting_id", ?::uuid as "user_id") k ` +
  `left join "participants" p on p."meeting_id" = k."meeting_id" ` +
  `left join "users" u on u."id" = k."user_id" and ${visibleUserSql('u')} ` +
  `order by ${PARTICIPANT_ORDER('p')}`;
const REQUESTS =
  `select ${participants.select('p')} from "participants" p ` +
  `join "meetings" m on m."id" = p."meeting_id" ` +
  `where p."user_id" = ? and p."status" = ? and m."status" in (?, ?) ` +
  `order by p."created_at" desc, p."id" desc`;

/** Which invitations of the caller a list shows: by their answer and the meeting's status. */
export interface InvitationFilter {
  answers?: ParticipantStatus[] | null;
  meetingStates?: MeetingStatus[] | null;
}

const IN_MEETING_ORDER = byCreation<ParticipantRecord>('p', 'asc');
const NEWEST_FIRST = byCreation<ParticipantRecord>('p', 'desc');

/** A slice of participants, and the users read along with them. */
export interface ParticipantSlice {
  slice: Slice<ParticipantRecord>;
  users: UserRecord[];
}

/** Participants of meetings (optionally of some answers), with their users. */
function ofMeetings(statuses: readonly ParticipantStatus[] | null | undefined): ParentListQuery {
  const answered = statuses && statuses.length > 0;
  return {
    select:
      `select ${participants.select('p')}, ${joinedUsers.select('u')} from "participants" p ` +
      `join "users" u on u."id" = p."user_id"`,
    parent: 'p."meeting_id"',
    where: answered ? 'p."status"::text = any(?::text[])' : '',
    params: answered ? [arrayLiteral(statuses)] : [],
  };
}

/**
 * A user's participation in a meeting, as {@link ParticipantStore.add} writes it: made now, or
 * recorded as made at `createdAt` (ISO 8601).
 */
export function newParticipant(
  fields: Pick<ParticipantRecord, 'meetingId' | 'userId' | 'status'>,
  createdAt?: string,
): ParticipantRecord {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    createdAt: createdAt ?? now,
    updatedAt: now,
    answerReason: null,
    ...fields,
  };
}

/** Every read and write of participants. */
export class ParticipantStore {
  constructor(private readonly em: EntityManager) {}

  /** The participants of each meeting with their users, in one joined query. */
  async ofMeetings(meetingIds: readonly string[]): Promise<MeetingParticipants> {
    // Each id is read once however often it is named (the ids are a relation joined to).
    const rows = await selectByIds(this.em, OF_MEETINGS, [...new Set(meetingIds)]);
    const byMeeting = new Map<string, ParticipantRecord[]>(meetingIds.map((id) => [id, []]));
    for (const participant of readAll(participants, rows)) {
      byMeeting.get(participant.meetingId)?.push(participant);
    }
    return { byMeeting, users: readAll(joinedUsers, rows) };
  }

  /** A user's unanswered invitations to meetings still open, newest first. */
  async requests(userId: string, page: Page): Promise<ParticipantRecord[]> {
    const rows = await selectRows(this.em, `${REQUESTS}${pageClause(page)}`, [
      userId,
      ParticipantStatus.NEW,
      ...OPEN_STATUSES,
      ...pageParams(page),
    ]);
    return readAll(participants, rows);
  }

  /**
   * The same slice of each meeting's participants (optionally of some answers), in the order
   * added, in one statement (see readSlices); with their users.
   */
  async slicesOfMeetings(
    meetingIds: readonly string[],
    statuses: readonly ParticipantStatus[] | null | undefined,
    request: SliceRequest,
  ): Promise<Map<string, ParticipantSlice>> {
    const query = ofMeetings(statuses);
    const slices = await readSlices(
      this.em,
      query,
      meetingIds,
      IN_MEETING_ORDER,
      participants,
      request,
    );
    const found = new Map<string, ParticipantSlice>();
    for (const [meetingId, slice] of slices) {
      found.set(meetingId, { slice, users: readAll(joinedUsers, slice.rows) });
    }
    return found;
  }

  /** How many participants (optionally of some answers) each meeting has, in one statement. */
  countsOfMeetings(
    meetingIds: readonly string[],
    statuses: readonly ParticipantStatus[] | null | undefined,
  ): Promise<Map<string, number>> {
    return countLists(this.em, ofMeetings(statuses), meetingIds);
  }

  /** A slice of a user's invitations to others' meetings, newest first. */
  async sliceOfInvitations(
    userId: string,
    filter: InvitationFilter,
    request: SliceRequest,
  ): Promise<{ slice: Slice<ParticipantRecord>; count: () => Promise<number> }> {
    const conditions = ['p."user_id" = ?', 'm."owner_id" <> p."user_id"'];
    const params: unknown[] = [userId];
    const statuses = filter.answers ?? [ParticipantStatus.NEW];
    if (statuses.length > 0) {
      conditions.push('p."status"::text = any(?::text[])');
      params.push(arrayLiteral(statuses));
    }
    const meetingStatuses = filter.meetingStates ?? OPEN_STATUSES;
    if (meetingStatuses.length > 0) {
      conditions.push('m."status"::text = any(?::text[])');
      params.push(arrayLiteral(meetingStatuses));
    }
    const query = {
      select:
        `select ${participants.select('p')} from "participants" p ` +
        `join "meetings" m on m."id" = p."meeting_id"`,
      where: conditions.join(' and '),
      params,
    };
    const slice = await readSlice(this.em, query, NEWEST_FIRST, participants, request);
    return { slice, count: () => countList(this.em, query) };
  }

  /** The participants of a meeting this transaction has locked, in the order they were added. */
  async ofLocked(meetingId: string): Promise<{ participants: ParticipantRecord[] }> {
    return {
      participants: readAll(participants, await selectRows(this.em, OF_LOCKED, [meetingId])),
    };
  }

  /** {@link ofLocked}, and a user if visible, in one statement (an add checks both). */
  async ofLockedWithUser(
    meetingId: string,
    userId: string,
  ): Promise<{ participants: ParticipantRecord[]; user: UserRecord | null }> {
    const rows = await selectRows(this.em, OF_LOCKED_WITH_USER, [meetingId, userId]);
    return {
      participants: readAll(participants, rows),
      user: rows[0] ? joinedUsers.read(rows[0]) : null,
    };
  }

  /**
   * {@link ofLocked} as they were, and in the same statement (when `write`) the user's answer
   * given (with its reason: null when the user gave it), written with a new `updatedAt` only if
   * it changes their answer. A user who is not a participant writes nothing.
   */
  async ofLockedAnswering(
    meetingId: string,
    userId: string,
    answer: { status: ParticipantStatus; reason: string | null },
    write: boolean,
  ): Promise<{ participants: ParticipantRecord[] }> {
    if (!write) {
      return this.ofLocked(meetingId);
    }
    const { status } = answer;
    const update = updateOf(
      Participant,
      { status, answerReason: answer.reason, updatedAt: new Date().toISOString() },
      {
        sql: '"meeting_id" = ? and "user_id" = ? and "status" <> ?',
        params: [meetingId, userId, status],
      },
    );
    const rows = await executeRows(this.em, `with "answered" as (${update.sql}) ${OF_LOCKED}`, [
      ...update.params,
      meetingId,
    ]);
    return { participants: readAll(participants, rows) };
  }

  /** Writes participants made by {@link newParticipant}, in one statement. */
  async add(...participants: ParticipantRecord[]): Promise<void> {
    const { sql, params } = insertOf(Participant, ...participants);
    await executeRows(this.em, sql, params);
  }

  /**
   * Gives these participants an answer, writing (with a new `updatedAt`, in one statement) only
   * those whose answer it changes.
   */
  async setStatus(given: readonly ParticipantRecord[], status: ParticipantStatus): Promise<void> {
    const changing = given.filter((participant) => participant.status !== status);
    if (changing.length > 0) {
      const { sql, params } = updateOf(
        Participant,
        { status, answerReason: null, updatedAt: new Date().toISOString() },
        idIn(changing.map((participant) => participant.id)),
      );
      await executeRows(this.em, sql, params);
    }
  }

  /** Takes a participant out of its meeting. */
  async remove(participant: ParticipantRecord): Promise<void> {
    await executeRows(this.em, `delete from "${tableOf(Participant)}" where "id" = ?`, [
      participant.id,
    ]);
  }
}
