import { type EntityManager, wrap } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { arrayLiteral, selectRows } from '../../db/select';
import { User } from './user.entity';
import { type UserRecord, userRecords } from './user.record';

const users = userRecords();
const SELECT_USERS = `select ${users.select('u')} from "users" u where u."id" = any(?::uuid[])`;

/** Users by id; users already loaded in this request's identity map cost no query. */
export function createUserByIdLoader(em: EntityManager): DataLoader<string, UserRecord | null> {
  return new DataLoader(async (ids) => {
    const known = new Map<string, UserRecord>();
    const missing: string[] = [];
    for (const id of ids) {
      const user = em.getUnitOfWork().getById<User>(User.name, id);
      // A bare reference (only its id known) still has to be loaded.
      if (user && wrap(user).isInitialized()) {
        known.set(id, user);
      } else {
        missing.push(id);
      }
    }
    if (missing.length > 0) {
      const rows = await selectRows(em, SELECT_USERS, [arrayLiteral(missing)]);
      for (const row of rows) {
        const user = users.read(row);
        if (user) {
          known.set(user.id, user);
        }
      }
    }
    return ids.map((id) => known.get(id) ?? null);
  });
}

/** How many users each user follows, or is followed by, in one grouped query per batch. */
export function createFollowCountLoader(
  em: EntityManager,
  side: 'follower' | 'following',
): DataLoader<string, number> {
  const column = side === 'follower' ? 'follower_id' : 'following_id';
  return new DataLoader(async (ids) => {
    const query = em
      .getKnex()('follows')
      .select(`${column} as id`)
      .count('* as total')
      .whereIn(column, [...ids])
      .groupBy(column);
    const rows = await em.execute<Array<{ id: string; total: string | number }>>(query);
    const totals = new Map(rows.map((row) => [row.id, Number(row.total)]));
    return ids.map((id) => totals.get(id) ?? 0);
  });
}
