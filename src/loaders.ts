import type { EntityManager } from '@mikro-orm/postgresql';
import { createMeetingByIdLoader } from './modules/meeting/meeting.loaders';
import { createParticipantsByMeetingLoader } from './modules/participant/participant.loaders';
import { createFollowCountLoader, createUserByIdLoader } from './modules/user/user.loaders';

/** Per-request batch loaders: created with the request's context, so batching never leaks. */
export function createLoaders(em: EntityManager) {
  const users = createUserByIdLoader(em);
  const participantsByMeeting = createParticipantsByMeetingLoader(em, users);
  return {
    users,
    meetings: createMeetingByIdLoader(em, { participantsByMeeting, users }),
    participantsByMeeting,
    followingCount: createFollowCountLoader(em, 'follower'),
    followersCount: createFollowCountLoader(em, 'following'),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
