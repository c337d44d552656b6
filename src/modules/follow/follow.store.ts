import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readAll, selectRows } from '../../platform/sql/rows';
import { type ReadModel, readerOf, toReadModel } from '../../platform/sql/read-model';
import {
  countList,
  byCreation,
  readSlice,
  type Slice,
  type SliceRequest,
} from '../../platform/sql/keyset';
import { type Page, pageClause, pageParams } from '../../platform/shared/pagination';
import { User, type UserRecord } from '../user';
import { Follow } from './follow.entity';

/** A follow as queries and mutations answer it. */
export type FollowRecord = ReadModel<Follow>;

/** Whose follows a list shows: the users someone follows, or their followers. */
export type FollowDirection = 'following' | 'followers';

const follows = readerOf(Follow);
const otherUsers = readerOf(User, 'u_');

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

const LIST: Record<FollowDirection, ReturnType<typeof listQueries>> = {
  following: listQueries('follower_id', 'following_id'),
  followers: listQueries('following_id', 'follower_id'),
};

const NEWEST_FIRST = byCreation<FollowRecord>('f', 'desc');

const SIDES: Record<FollowDirection, { own: string; other: string }> = {
  following: { own: 'follower_id', other: 'following_id' },
  followers: { own: 'following_id', other: 'follower_id' },
};

/** Every read and write of follows. */
export class FollowStore {
  constructor(private readonly em: EntityManager) {}

  /**
   * Inserts a follow unless the pair exists (concurrent follows of a pair do not fail); answers
   * whether it did.
   */
  async insertIfAbsent(followerId: string, followingId: string): Promise<boolean> {
    const now = new Date();
    const result = await this.em
      .createQueryBuilder(Follow)
      .insert({ id: randomUUID(), followerId, followingId, createdAt: now, updatedAt: now })
      .onConflict(['followerId', 'followingId'])
      .ignore()
      .execute();
    return result.affectedRows > 0;
  }

  /** The follow of a pair, or null. */
  async find(followerId: string, followingId: string): Promise<FollowRecord | null> {
    const follow = await this.em.findOne(Follow, { followerId, followingId });
    return follow ? toReadModel(follow) : null;
  }

  /** Removes the follow of a pair; true when there was one. */
  async remove(followerId: string, followingId: string): Promise<boolean> {
    return (await this.em.nativeDelete(Follow, { followerId, followingId })) > 0;
  }

  /** The follows with these ids (in no particular order). */
  async byIds(ids: readonly string[]): Promise<FollowRecord[]> {
    return (await this.em.find(Follow, { id: { $in: [...ids] } })).map(toReadModel);
  }

  /** The follows between two users, either way. */
  async between(a: string, b: string): Promise<FollowRecord[]> {
    const found = await this.em.find(Follow, {
      $or: [
        { followerId: a, followingId: b },
        { followerId: b, followingId: a },
      ],
    });
    return found.map(toReadModel);
  }

  /** A slice of a user's follows (or followers), newest first, with the other users. */
  async slice(
    userId: string,
    direction: FollowDirection,
    request: SliceRequest,
  ): Promise<{ slice: Slice<FollowRecord>; users: UserRecord[]; count: () => Promise<number> }> {
    const { own, other } = SIDES[direction];
    const query = {
      select:
        `select ${follows.select('f')}, ${otherUsers.select('u')} from "follows" f ` +
        `join "users" u on u."id" = f."${other}"`,
      where: `f."${own}" = ?`,
      params: [userId],
    };
    const slice = await readSlice(this.em, query, NEWEST_FIRST, follows, request);
    return {
      slice,
      users: readAll(otherUsers, slice.rows),
      count: () => countList(this.em, query),
    };
  }

  /** A page of a user's follows (or followers), newest first, with the other users and the total. */
  async list(
    userId: string,
    direction: FollowDirection,
    page: Page,
  ): Promise<{ data: FollowRecord[]; users: UserRecord[]; count: number }> {
    const query = LIST[direction];
    const rows = await selectRows(this.em, `${query.select}${pageClause(page)}`, [
      userId,
      ...pageParams(page),
    ]);
    const found = { data: readAll(follows, rows), users: readAll(otherUsers, rows) };
    if (rows[0]) {
      return { ...found, count: Number(rows[0]['total']) };
    }
    // Past the end (or none at all): the window count had no row to ride on.
    const counted = page.skip > 0 ? await selectRows(this.em, query.count, [userId]) : [];
    return { ...found, count: Number(counted[0]?.['total'] ?? 0) };
  }
}
