import { ConflictError } from '../../platform/shared/errors';
import { type ConnectionResult, toConnection } from '../../platform/graphql/connection';
import type { SliceRequest } from '../../platform/sql/keyset';
import type { Page } from '../../platform/shared/pagination';
import { type UserLoaders, type UserRecord, type UserStore, userChange } from '../user';
import type { FollowDirection, FollowRecord } from './follow.store';
import type { StoreSet } from '../../platform/composition/context';
import type { ChangeLogStore } from '../../platform/live/change-log';
import type { FollowStore } from './follow.store';

/** The stores follows work with. */
export type FollowStores = StoreSet<{
  users: UserStore;
  follows: FollowStore;
  events: ChangeLogStore;
}>;
type Stores = FollowStores;
export type FollowLoaders = Pick<UserLoaders, 'primeUsers'>;
type Loaders = FollowLoaders;

/** Whether two users follow each other, seen from the caller. */
export interface FollowStatus {
  isFollowing: boolean;
  isFollowedBy: boolean;
  isMutual: boolean;
}

/** What the change log says of follows (the user followed, and who followed). */
export const FOLLOW_CHANGES = { followed: 'USER_FOLLOWED', unfollowed: 'USER_UNFOLLOWED' } as const;

/** A follow as the change log records it: a change to the user followed, made by the follower. */
const followChange = (kind: string, followerId: string, followedId: string) =>
  userChange(kind, followedId, followerId);

export class FollowService {
  constructor(
    private readonly stores: Stores,
    private readonly loaders: Loaders,
  ) {}

  /** Follows a user; following again changes nothing. */
  async follow(viewer: UserRecord, userId: string): Promise<FollowRecord> {
    const target = await this.stores.users.visible({ id: userId });
    if (target.id === viewer.id) {
      throw new ConflictError('CANNOT_FOLLOW_YOURSELF', 'You cannot follow yourself');
    }
    // Insert-or-ignore keeps concurrent follows of the same pair from failing; an unfollow racing
    // in between can delete the row again, so the follow is written until it is there to read.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const follow = await this.stores.ormTransaction(async (tx) => {
        if (await tx.follows.insertIfAbsent(viewer.id, target.id)) {
          await tx.events.append([followChange(FOLLOW_CHANGES.followed, viewer.id, target.id)]);
        }
        return tx.follows.find(viewer.id, target.id);
      });
      if (follow) {
        return follow;
      }
    }
    throw new ConflictError(
      'FOLLOW_CHANGED_CONCURRENTLY',
      'The follow changed while being written',
    );
  }

  /** Stops following a user; unfollowing someone not followed changes nothing. */
  async unfollow(viewer: UserRecord, userId: string): Promise<boolean> {
    const target = await this.stores.users.visible({ id: userId });
    return this.stores.ormTransaction(async (tx) => {
      const removed = await tx.follows.remove(viewer.id, target.id);
      if (removed) {
        await tx.events.append([followChange(FOLLOW_CHANGES.unfollowed, viewer.id, target.id)]);
      }
      return removed;
    });
  }

  /** The caller's follows (or followers), newest first, with the total. */
  async list(
    viewer: UserRecord,
    direction: FollowDirection,
    page: Page,
  ): Promise<{ data: FollowRecord[]; count: number }> {
    const { data, users, count } = await this.stores.follows.list(viewer.id, direction, page);
    this.loaders.primeUsers(users);
    return { data, count };
  }

  /** A slice of the caller's follows (or followers), newest first. */
  async slice(
    viewer: UserRecord,
    direction: FollowDirection,
    request: SliceRequest,
  ): Promise<ConnectionResult<FollowRecord>> {
    const { slice, users, count } = await this.stores.follows.slice(viewer.id, direction, request);
    this.loaders.primeUsers(users);
    return toConnection(slice, count);
  }

  async status(viewer: UserRecord, userId: string): Promise<FollowStatus> {
    const target = await this.stores.users.visible({ id: userId });
    const follows = await this.stores.follows.between(viewer.id, target.id);
    const isFollowing = follows.some((f) => f.followerId === viewer.id);
    const isFollowedBy = follows.some((f) => f.followerId === target.id);
    return { isFollowing, isFollowedBy, isMutual: isFollowing && isFollowedBy };
  }
}
