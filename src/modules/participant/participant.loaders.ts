import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { arrayLiteral, selectRows } from '../../db/select';
import { type UserRecord, userRecords } from '../user/user.record';
import { type ParticipantRecord, participantRecords } from './participant.record';

const participants = participantRecords();
const users = userRecords('u_');
const SELECT_PARTICIPANTS_WITH_USERS =
  `select ${participants.select('p')}, ${users.select('u')} from "participants" p ` +
  `join "users" u on u."id" = p."user_id" where p."meeting_id" = any(?::uuid[])`;
const ORDER = ` order by p."meeting_id", p."created_at", p."id"`;

/**
 * Participants of each meeting, ordered by creation then id, fetched with their users in one
 * joined query; the users are handed to the user loader so `Participant.user` costs nothing.
 */
export function createParticipantsByMeetingLoader(
  em: EntityManager,
  userLoader: DataLoader<string, UserRecord | null>,
): DataLoader<string, ParticipantRecord[]> {
  return new DataLoader(async (meetingIds) => {
    const rows = await selectRows(em, `${SELECT_PARTICIPANTS_WITH_USERS}${ORDER}`, [
      arrayLiteral(meetingIds),
    ]);
    const byMeeting = new Map<string, ParticipantRecord[]>(meetingIds.map((id) => [id, []]));
    for (const row of rows) {
      const participant = participants.read(row);
      const user = users.read(row);
      if (participant) {
        byMeeting.get(participant.meetingId)?.push(participant);
      }
      if (user) {
        userLoader.prime(user.id, user);
      }
    }
    return meetingIds.map((id) => byMeeting.get(id) ?? []);
  });
}
