import { randomUUID } from 'node:crypto';
import { createMeetings, withClient } from '../lib/db';
import { signAccessToken } from '../lib/jwt';
import { KEYS, TOKENS } from '../run/targets';

// The fleet run's people and meetings, made by SQL on the primary before the load (no change is
// logged for them): writers who own meetings and endpoints, subscribers each the accepted guest
// of one writer's meeting, and extra users the writers invite.

export interface Member {
  id: string;
  token: string;
}

export interface Cast {
  writers: Member[];
  /** Subscriber i is the guest of `watched[i]`, owned by writer i mod writers. */
  subscribers: Member[];
  watched: string[];
  /** Users the writers add to the meetings they make (none of them subscribes). */
  extras: string[];
}

/** `count` active users `fleet.<role>.<n>`; nobody signs in as them (the run signs tokens). */
async function makeUsers(dbUrl: string, role: string, count: number): Promise<Member[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const accounts = ids.map((_id, n) => `fleet.${role}.${n}`);
  await withClient(dbUrl, (client) =>
    client.query(
      `insert into "users" ("id", "created_at", "updated_at", "name", "email", "account",
         "password_hash", "roles", "is_active", "is_verified")
       select t."id", now(), now(), t."account", t."account" || '@example.com', t."account",
         'not a password hash: nobody signs in', 'user', true, true
       from unnest($1::uuid[], $2::text[]) t("id", "account")`,
      [ids, accounts],
    ),
  );
  return ids.map((id) => ({ id, token: signAccessToken(KEYS, TOKENS, id) }));
}

export async function makeCast(
  dbUrl: string,
  size: { writers: number; subscribers: number; extras: number },
): Promise<Cast> {
  const writers = await makeUsers(dbUrl, 'writer', size.writers);
  const subscribers = await makeUsers(dbUrl, 'subscriber', size.subscribers);
  const extras = await makeUsers(dbUrl, 'extra', size.extras);
  const watched: string[] = [];
  for (const [w, writer] of writers.entries()) {
    const guests = subscribers.filter((_s, i) => i % writers.length === w);
    const meetings = await createMeetings(dbUrl, writer.id, guests.length, {
      title: 'Fleet watched',
      guests: (i) => [(guests[i] as Member).id],
    });
    guests.forEach((_guest, i) => {
      watched[w + i * writers.length] = meetings[i] as string;
    });
  }
  return { writers, subscribers, watched, extras: extras.map((extra) => extra.id) };
}

/** The cursor of the newest change logged (0.0 when none): the run's changes come after it. */
export async function newestCursor(dbUrl: string): Promise<string> {
  const rows = await withClient(dbUrl, (client) =>
    client.query<{ cursor: string }>(
      `select "tx"::text || '.' || "position"::text as "cursor" from "change_log"
       order by "tx" desc, "position" desc limit 1`,
    ),
  );
  return rows.rows[0]?.cursor ?? '0.0';
}
