import type { EntityManager } from '@mikro-orm/postgresql';
import { RefreshTokenStore } from './modules/auth/refresh-token.store';
import { FollowStore } from './modules/follow/follow.store';
import { MeetingStore } from './modules/meeting/meeting.store';
import { NodeStore } from './modules/node/node.store';
import { ParticipantStore } from './modules/participant/participant.store';
import { UserStore } from './modules/user/user.store';

/** The data access of every module over one entity manager (a request's, or a transaction's). */
export interface Stores {
  users: UserStore;
  meetings: MeetingStore;
  participants: ParticipantStore;
  follows: FollowStore;
  nodes: NodeStore;
  refreshTokens: RefreshTokenStore;
  /** Runs `work` in a transaction, with stores over it; commits when it returns. */
  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
}

export function createStores(em: EntityManager): Stores {
  return {
    users: new UserStore(em),
    meetings: new MeetingStore(em),
    participants: new ParticipantStore(em),
    follows: new FollowStore(em),
    nodes: new NodeStore(em),
    refreshTokens: new RefreshTokenStore(em),
    transaction: (work) => em.transactional((tx) => work(createStores(tx))),
  };
}
