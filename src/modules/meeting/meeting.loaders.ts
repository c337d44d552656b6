import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { arrayLiteral, selectRows } from '../../db/select';
import { type ParticipantRecord, participantRecords } from '../participant/participant.record';
import { type UserRecord, userRecords } from '../user/user.record';
import { type MeetingRecord, meetingRecords } from './meeting.record';

const meetings = meetingRecords();
const participants = participantRecords('p_');
const users = userRecords('u_');
const SELECT_MEETINGS_WITH_PARTICIPANTS =
  `select ${meetings.select('m')}, ${participants.select('p')}, ${users.select('u')} ` +
  `from "meetings" m left join "participants" p on p."meeting_id" = m."id" ` +
  `left join "users" u on u."id" = p."user_id" where m."id" = any(?::uuid[])`;
const ORDER = ` order by m."id", p."created_at", p."id"`;

/**
 * Meetings by id, one query per batch that brings each meeting's participants and their users
 * along (who may see a meeting depends on them, and a meeting is rarely shown without them); those
 * are handed to their loaders, so `Meeting.participants` and `Participant.user` cost nothing.
 */
export function createMeetingByIdLoader(
  em: EntityManager,
  related: {
    participantsByMeeting: DataLoader<string, ParticipantRecord[]>;
    users: DataLoader<string, UserRecord | null>;
  },
): DataLoader<string, MeetingRecord | null> {
  return new DataLoader(async (ids) => {
    const rows = await selectRows(em, `${SELECT_MEETINGS_WITH_PARTICIPANTS}${ORDER}`, [
      arrayLiteral(ids),
    ]);
    const byId = new Map<string, { meeting: MeetingRecord; participants: ParticipantRecord[] }>();
    for (const row of rows) {
      const id = row['id'] as string;
      let found = byId.get(id);
      if (!found) {
        const meeting = meetings.read(row);
        if (!meeting) {
          continue;
        }
        found = { meeting, participants: [] };
        byId.set(id, found);
      }
      const participant = participants.read(row);
      const user = users.read(row);
      if (participant) {
        found.participants.push(participant);
      }
      if (user) {
        related.users.prime(user.id, user);
      }
    }
    for (const [id, found] of byId) {
      related.participantsByMeeting.prime(id, found.participants);
    }
    return ids.map((id) => byId.get(id)?.meeting ?? null);
  });
}
