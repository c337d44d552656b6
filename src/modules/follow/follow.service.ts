import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError } from '../../shared/errors';
import type DataLoader from 'dataloader';
import { readAll } from '../../db/records';
import { selectRows } from '../../db/select';
import { type Page, pageClause, pageParams } from '../../shared/pagination';
import { type UserRecord, userRecords } from '../user/user.record';
import { followRecords, type FollowRecord } from './follow.record';
import { User } from '../user/user.entity';
import { Follow } from './follow.entity';
import { VISIBLE_USER } from '../user/user.rules';

/** Whether two users follow each other, seen from the caller. */
export interface FollowStatus {
  isFollowing: boolean;
  isFollowedBy: boolean;
  isMutual: boolean;
}

const follows = followRecords();
const otherUsers = userRecords('u_');

/** A direction's page query (the other user joined, the total as a window) and count query. */
function listQueries(own: 'follower_id' | 'following_id', other: 'follower_id' | 'following_id') {
  return {
    select:
      `select ${follows.select('f')}, ${otherUsers.select('u')}, count(*) over ()::int as "total" ` +
      `from "follows" f join "users" u on u."id" = f."${other}" where f."${own}" = ? ` +
      `order by f."created_at" desc, f."id" desc`,
    count: `select count(*)::int as "total" from "follows" f where f."${own}" = ?`,
  };
}

const LIST = {
  following: listQueries('follower_id', 'following_id'),
  followers: listQueries('following_id', 'follower_id'),
};

export class FollowService {
  constructor(
    private readonly em: EntityManager,
    private readonly users: DataLoader<string, UserRecord | null>,
  ) {}

  /** Follows a user; following again changes nothing. */
  async follow(viewer: UserRecord, userId: string): Promise<Follow> {
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
  async unfollow(viewer: UserRecord, userId: string): Promise<boolean> {
    const target = await this.visibleUser(userId);
    const removed = await this.em.nativeDelete(Follow, {
      follower: viewer.id,
      following: target.id,
    });
    return removed > 0;
  }

  /** The caller's follows (or followers), newest first, with the total; their users primed. */
  async list(
    viewer: UserRecord,
    direction: 'following' | 'followers',
    page: Page,
  ): Promise<{ data: FollowRecord[]; count: number }> {
    const query = LIST[direction];
    const rows = await selectRows(this.em, `${query.select}${pageClause(page)}`, [
      viewer.id,
      ...pageParams(page),
    ]);
    const data = readAll(follows, rows);
    for (const row of rows) {
      const user = otherUsers.read(row);
      if (user) {
        this.users.prime(user.id, user);
      }
    }
    if (rows[0]) {
      return { data, count: Number(rows[0]['total']) };
    }
    // Past the end (or none at all): the window count had no row to ride on.
    const counted = page.skip > 0 ? await selectRows(this.em, query.count, [viewer.id]) : [];
    return { data, count: Number(counted[0]?.['total'] ?? 0) };
  }

  async status(viewer: UserRecord, userId: string): Promise<FollowStatus> {
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
    return this.em.findOneOrFail(User, { id, ...VISIBLE_USER });
  }
}
