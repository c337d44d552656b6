import type { Client } from 'pg';
import type { MixedLoad } from './load';

/** The writes the load saw acknowledged that the database does not hold (both lists empty: none lost). */
export async function lostWrites(
  client: Client,
  load: MixedLoad,
): Promise<{ users: string[]; follows: string[] }> {
  const ids = load.users.map((user) => user.id);
  const users = await client.query<{ id: string }>(
    'select id from users where id = any($1::uuid[])',
    [ids],
  );
  const present = new Set(users.rows.map((row) => row.id));
  const follows = await client.query<{ pair: string }>(
    "select follower_id || '>' || following_id as pair from follows",
  );
  const pairs = new Set(follows.rows.map((row) => row.pair));
  return {
    users: ids.filter((id) => !present.has(id)),
    follows: load.follows
      .map((f) => `${f.follower}>${f.following}`)
      .filter((pair) => !pairs.has(pair)),
  };
}
