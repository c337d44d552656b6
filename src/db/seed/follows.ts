import { randomUUID } from 'node:crypto';
import type { Follow } from '../../modules/follow/follow.entity';
import type { PlannedRecord } from './planned';
import type { Random } from './random';
import { MINUTE } from './time';
import type { SeedUser } from './users';

/** How strongly follows favour a few popular users (1 = uniform). */
const POPULARITY_SKEW = 2;

/**
 * `perUser` follows made by each user, to distinct other users, half of them drawn towards a
 * few popular users. A follow is created after both users signed up and never changes.
 */
export function* generateFollows(
  rng: Random,
  users: readonly SeedUser[],
  perUser: number,
  now: number,
): Generator<PlannedRecord<Follow>> {
  for (let f = 0; f < users.length; f += 1) {
    const follower = users[f] as SeedUser;
    const targets = rng.distinctIndexes(users.length, perUser, new Set([f]), POPULARITY_SKEW);
    for (const t of targets) {
      const following = users[t] as SeedUser;
      const earliest = Math.max(follower.createdAt, following.createdAt) + MINUTE;
      const createdAt = earliest + rng.float() * Math.max(0, now - earliest);
      yield {
        id: randomUUID(),
        createdAt,
        updatedAt: createdAt,
        followerId: follower.id,
        followingId: following.id,
      };
    }
  }
}
