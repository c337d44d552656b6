import type { TestApp } from '../helpers/test-app';

/** How many rows each table holds, and every follow as `follower>following`. */
export interface RowCounts {
  users: number;
  meetings: number;
  participants: number;
  follows: Set<string>;
}

/** Runs one SQL statement on a fresh fork of the app's entity manager. */
export function sql<T extends object>(
  t: TestApp,
  query: string,
  params: unknown[] = [],
): Promise<T[]> {
  return t.instance.database.orm.em.fork().getConnection().execute<T[]>(query, params);
}

/** Counts the rows a request could create, straight from the database. */
export async function rowCounts(t: TestApp): Promise<RowCounts> {
  const [counts] = await sql<{ users: number; meetings: number; participants: number }>(
    t,
    `select (select count(*)::int from users) as users,
            (select count(*)::int from meetings) as meetings,
            (select count(*)::int from participants) as participants`,
  );
  const follows = await sql<{ pair: string }>(
    t,
    `select follower_id::text || '>' || following_id::text as pair from follows`,
  );
  return {
    users: counts!.users,
    meetings: counts!.meetings,
    participants: counts!.participants,
    follows: new Set(follows.map((row) => row.pair)),
  };
}
