import DataLoader from 'dataloader';
import { inKeyOrder, KnownLoader } from '../../platform/shared/known-loader';
import type { Stores } from '../index';
import type { UserRecord } from './user.store';

/** A request's loaders of users and their follow counts. */
export function userLoaders(stores: Stores) {
  const users = new KnownLoader<string, UserRecord | null>(async (ids) =>
    inKeyOrder(ids, await stores.users.byIds(ids)),
  );
  return {
    users,
    /** Hands users read along with something else to the loader: no second read of them. */
    primeUsers(records: readonly UserRecord[]): void {
      for (const user of records) {
        users.prime(user.id, user);
      }
    },
    followingCount: new DataLoader<string, number>((ids) =>
      stores.users.followCounts('follower', ids),
    ),
    followersCount: new DataLoader<string, number>((ids) =>
      stores.users.followCounts('following', ids),
    ),
  };
}
