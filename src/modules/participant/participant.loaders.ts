import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import type { User } from '../user/user.entity';
import { Participant } from './participant.entity';

/**
 * Participants of each meeting, ordered by creation then id, fetched with their users in one
 * joined query; the users are handed to the user loader so `Participant.user` costs nothing.
 */
export function createParticipantsByMeetingLoader(
  em: EntityManager,
  users: DataLoader<string, User | null>,
): DataLoader<string, Participant[]> {
  return new DataLoader(async (meetingIds) => {
    const participants = await em.find(
      Participant,
      { meeting: { $in: [...meetingIds] } },
      {
        populate: ['user'],
        strategy: 'joined',
        orderBy: { meeting: 'asc', createdAt: 'asc', id: 'asc' },
      },
    );
    const byMeeting = new Map<string, Participant[]>(meetingIds.map((id) => [id, []]));
    for (const participant of participants) {
      byMeeting.get(participant.meetingId)?.push(participant);
      users.prime(participant.userId, participant.user.getEntity());
    }
    return meetingIds.map((id) => byMeeting.get(id) ?? []);
  });
}
