import type { EntityManager } from '@mikro-orm/postgresql';
import { readAll } from '../../db/records';
import { type ReadModel, readerOf } from '../../db/read-model';
import { arrayLiteral, selectRows } from '../../db/select';
import { type Page, pageClause, pageParams } from '../../shared/pagination';
import { MeetingStatus } from '../meeting/meeting.entity';
import { User } from '../user/user.entity';
import type { UserRecord } from '../user/user.store';
import { Participant, ParticipantStatus } from './participant.entity';

/** A participant as queries and mutations answer it. */
export type ParticipantRecord = ReadModel<Participant>;

/** The participants of meetings, each meeting's in the order they were added, and their users. */
export interface MeetingParticipants {
  byMeeting: Map<string, ParticipantRecord[]>;
  users: UserRecord[];
}

/** Participants are shown in the order they were added (the owner first). */
export const PARTICIPANT_ORDER = (alias: string): string => `${alias}."created_at", ${alias}."id"`;

/** Meetings that still wait for answers. */
const OPEN_STATUSES = [MeetingStatus.PENDING, MeetingStatus.CONFIRMED];

const participants = readerOf(Participant);
const joinedUsers = readerOf(User, 'u_');
const OF_MEETINGS =
  `select ${participants.select('p')}, ${joinedUsers.select('u')} from "participants" p ` +
  `join "users" u on u."id" = p."user_id" where p."meeting_id" = any(?::uuid[]) ` +
  `order by p."meeting_id", ${PARTICIPANT_ORDER('p')}`;
const REQUESTS =
  `select ${participants.select('p')} from "participants" p ` +
  `join "meetings" m on m."id" = p."meeting_id" ` +
  `where p."user_id" = ? and p."status" = ? and m."status" in (?, ?) ` +
  `order by p."created_at" desc, p."id" desc`;

/** Every read and write of participants. */
export class ParticipantStore {
  constructor(private readonly em: EntityManager) {}

  /** The participants of each meeting with their users, in one joined query. */
  async ofMeetings(meetingIds: readonly string[]): Promise<MeetingParticipants> {
    const rows = await selectRows(this.em, OF_MEETINGS, [arrayLiteral(meetingIds)]);
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

  /** Adds a participant (written with the next flush). */
  add(fields: Pick<Participant, 'meetingId' | 'userId' | 'status'> & { createdAt?: Date }) {
    return this.em.create(Participant, fields);
  }

  /** Takes a participant out of its meeting (deleted with the next flush). */
  remove(participant: Participant): void {
    this.em.remove(participant);
  }
}
