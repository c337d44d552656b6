import { randomUUID } from 'node:crypto';
import type { Random } from './random';
import type { SqlValue } from './sql';
import { MINUTE, iso } from './time';
import type { SeedUser } from './users';

export const FOLLOW_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'follower_id',
  'following_id',
] as const;

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
): Generator<SqlValue[]> {
  for (let f = 0; f < users.length; f += 1) {
    const follower = users[f] as SeedUser;
    const targets = rng.distinctIndexes(users.length, perUser, new Set([f]), POPULARITY_SKEW);
    for (const t of targets) {
      const following = users[t] as SeedUser;
      const earliest = Math.max(follower.createdAt, following.createdAt) + MINUTE;
      const createdAt = iso(earliest + rng.float() * Math.max(0, now - earliest));
      yield [randomUUID(), createdAt, createdAt, follower.id, following.id];
    }
  }
}
