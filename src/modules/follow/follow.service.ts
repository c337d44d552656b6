import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError } from '../../shared/errors';
import type { Page } from '../../shared/pagination';
import { User } from '../user/user.entity';
import { Follow } from './follow.entity';

/** Whether two users follow each other, seen from the caller. */
export interface FollowStatus {
  isFollowing: boolean;
  isFollowedBy: boolean;
  isMutual: boolean;
}

export class FollowService {
  constructor(private readonly em: EntityManager) {}

  /** Follows a user; following again changes nothing. */
  async follow(viewer: User, userId: string): Promise<Follow> {
    const target = await this.visibleUser(userId);
    if (target.id === viewer.id) {
      throw new ConflictError('CANNOT_FOLLOW_YOURSELF', 'You cannot follow yourself');
    }
    // Insert-or-ignore keeps concurrent follows of the same pair from failing; an unfollow racing
    // in between can delete the row again, so the follow is written until it is there to read.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const now = new Date();
      await this.em
        .createQueryBuilder(Follow)
        .insert({
          id: randomUUID(),
          follower: viewer.id,
          following: target.id,
          createdAt: now,
          updatedAt: now,
        })
        .onConflict(['follower', 'following'])
        .ignore()
        .execute();
      const follow = await this.em.findOne(Follow, { follower: viewer.id, following: target.id });
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
  async unfollow(viewer: User, userId: string): Promise<boolean> {
    const target = await this.visibleUser(userId);
    const removed = await this.em.nativeDelete(Follow, {
      follower: viewer.id,
      following: target.id,
    });
    return removed > 0;
  }

  /** The caller's follows (or followers), newest first, with the total. */
  async list(
    viewer: User,
    direction: 'following' | 'followers',
    page: Page,
  ): Promise<{ data: Follow[]; count: number }> {
    const where = direction === 'following' ? { follower: viewer.id } : { following: viewer.id };
    const options = {
      orderBy: { createdAt: 'desc', id: 'desc' },
      offset: page.skip,
      limit: page.limit ?? undefined,
    } as const;
    if (page.limit === null) {
      // Unpaged: the rows are the total, unless the skip went past them all.
      const data = await this.em.find(Follow, where, options);
      if (data.length > 0 || page.skip === 0) {
        return { data, count: page.skip + data.length };
      }
    }
    const [data, count] = await this.em.findAndCount(Follow, where, options);
    return { data, count };
  }

  async status(viewer: User, userId: string): Promise<FollowStatus> {
    const target = await this.visibleUser(userId);
    const follows = await this.em.find(Follow, {
      $or: [
        { follower: viewer.id, following: target.id },
        { follower: target.id, following: viewer.id },
      ],
    });
    const isFollowing = follows.some((f) => f.followerId === viewer.id);
    const isFollowedBy = follows.some((f) => f.followerId === target.id);
    return { isFollowing, isFollowedBy, isMutual: isFollowing && isFollowedBy };
  }

  private visibleUser(id: string): Promise<User> {
    return this.em.findOneOrFail(User, { id, isActive: true, deletedAt: null });
  }
}
