import type { EntityManager } from '@mikro-orm/postgresql';
import { EventStore } from './events/event.store';
import { RefreshTokenStore } from './modules/auth/refresh-token.store';
import { FollowStore } from './modules/follow/follow.store';
import { MeetingStore } from './modules/meeting/meeting.store';
import { NodeStore } from './modules/node/node.store';
import { ParticipantStore } from './modules/participant/participant.store';
import { UserStore } from './modules/user/user.store';
import { inSqlTransaction } from './db/sql-transaction';

/** The data access of every module over one entity manager (a request's, or a transaction's). */
export interface Stores {
  readonly users: UserStore;
  readonly meetings: MeetingStore;
  readonly participants: ParticipantStore;
  readonly follows: FollowStore;
  readonly nodes: NodeStore;
  readonly refreshTokens: RefreshTokenStore;
  /** Change notices for subscribers on every instance (sent with the transaction's commit). */
  readonly events: EventStore;
  /**
   * Runs `work` in a transaction, with stores over it; commits when it returns, rolls back when
   * it throws. Its work calls the stores' statement methods only (every write and every read
   * under a lock is one): on a server, BEGIN and COMMIT on one pooled connection, without the
   * ORM's unit of work (src/db/sql-transaction.ts).
   */
  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
}

/**
 * Each store is built on first use: a request reads one or two of them, so it never allocates
 * the others (getters on the prototype, no closure per request).
 */
class StoresOver implements Stores {
  #users?: UserStore;
  #meetings?: MeetingStore;
  #participants?: ParticipantStore;
  #follows?: FollowStore;
  #nodes?: NodeStore;
  #refreshTokens?: RefreshTokenStore;
  #events?: EventStore;

  constructor(private readonly em: EntityManager) {}

  get users(): UserStore {
    return (this.#users ??= new UserStore(this.em));
  }

  get meetings(): MeetingStore {
    return (this.#meetings ??= new MeetingStore(this.em));
  }

  get participants(): ParticipantStore {
    return (this.#participants ??= new ParticipantStore(this.em));
  }

  get follows(): FollowStore {
    return (this.#follows ??= new FollowStore(this.em));
  }

  get nodes(): NodeStore {
    return (this.#nodes ??= new NodeStore(this.em));
  }

  get refreshTokens(): RefreshTokenStore {
    return (this.#refreshTokens ??= new RefreshTokenStore(this.em));
  }

  get events(): EventStore {
    return (this.#events ??= new EventStore(this.em));
  }

  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return inSqlTransaction(this.em, (tx) => work(new StoresOver(tx)));
  }
}

export function createStores(em: EntityManager): Stores {
  return new StoresOver(em);
}
