import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The data a benchmark database holds (arguments of `npm run seed`). */
export interface DataSpec {
  users: number;
  followsPerUser: number;
  meetings: number;
  bigMeeting: number;
  invitations: number;
}

export const FULL_DATA: DataSpec = {
  users: 100_000,
  followsPerUser: 20,
  meetings: 20_000,
  bigMeeting: 50,
  invitations: 200,
};

/** The same shape at a tenth of the users (search cost growth, and --quick without full data). */
export const SMALL_DATA: DataSpec = { ...FULL_DATA, users: 10_000, meetings: 2_000 };

export const BIG_MEETING_TITLE = 'Company All-Hands Meeting';
export const WRITER = {
  account: 'bench.writer',
  email: 'bench.writer@example.com',
  name: 'Bench Writer Account',
};
const FIXED_ACCOUNTS = ['demo', 'inbox.user', 'admin', WRITER.account];
/**
 * The accounts the harness adds beside the seed all begin so (the writer, the scenarios' teams
 * and owners): never of the generated form, so the seed check does not count them.
 */
export const BENCH_ACCOUNT_PREFIX = 'bench.';
/** Generated accounts of a fresh seed: "first.last.n". */
const GENERATED_ACCOUNT = '^[a-z.]+\\.[0-9]+$';

/** The URL of another database on the same server. */
export function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

export const databaseName = (url: string): string =>
  decodeURIComponent(new URL(url).pathname.slice(1));

export async function withClient<T>(
  url: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function scalar<T>(
  client: pg.Client,
  sql: string,
  values: unknown[] = [],
): Promise<T | undefined> {
  const result = await client.query(sql, values);
  const row = result.rows[0] as Record<string, unknown> | undefined;
  return row ? (Object.values(row)[0] as T) : undefined;
}

/** Creates the database unless it exists (connecting to the server's `postgres` database). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  return withClient(databaseUrl(url, 'postgres'), async (client) => {
    const exists = await scalar<boolean>(
      client,
      'select exists(select 1 from pg_database where datname = $1)',
      [name],
    );
    if (exists) {
      return false;
    }
    await client.query(`create database "${name.replace(/"/g, '""')}"`);
    return true;
  });
}

/** What is missing for the spec; empty when the database holds the expected data. */
export async function seedProblems(url: string, spec: DataSpec): Promise<string[]> {
  return withClient(url, async (client) => {
    const tables = await scalar<number>(
      client,
      `select count(*)::int from information_schema.tables where table_schema = 'public'
       and table_name in ('users', 'follows', 'meetings', 'participants')`,
    );
    if (tables !== 4) {
      return ['no schema'];
    }
    const problems: string[] = [];
    const users = await scalar<number>(
      client,
      `select count(*)::int from "users" where "account" ~ '${GENERATED_ACCOUNT}'`,
    );
    if (users !== spec.users) {
      problems.push(`${users} generated users, expected ${spec.users}`);
    }
    const fixed = await scalar<number>(
      client,
      `select count(*)::int from "users" where "account" in ('demo', 'inbox.user', 'admin')`,
    );
    if (fixed !== 3) {
      problems.push('fixed users missing');
    }
    const follows = (await scalar<number>(client, 'select count(*)::int from "follows"')) ?? 0;
    const expectedFollows = (spec.users + 3) * spec.followsPerUser;
    if (follows < 0.98 * expectedFollows || follows > expectedFollows) {
      problems.push(`${follows} follows, expected about ${expectedFollows}`);
    }
    const meetings = await scalar<number>(
      client,
      `select count(*)::int from "meetings" m join "users" u on u."id" = m."owner_id"
       where u."account" <> $1`,
      [WRITER.account],
    );
    if ((meetings ?? 0) < spec.meetings + 1) {
      problems.push(`${meetings} meetings, expected at least ${spec.meetings + 1}`);
    }
    const big = await scalar<number>(
      client,
      `select count(p.*)::int from "meetings" m join "users" u on u."id" = m."owner_id"
       join "participants" p on p."meeting_id" = m."id"
       where u."account" = 'demo' and m."title" = $1 group by m."id" limit 1`,
      [BIG_MEETING_TITLE],
    );
    if (big !== spec.bigMeeting) {
      problems.push(`big meeting has ${big ?? 0} participants, expected ${spec.bigMeeting}`);
    }
    const invitations = await scalar<number>(
      client,
      `select count(*)::int from "participants" p join "meetings" m on m."id" = p."meeting_id"
       join "users" u on u."id" = p."user_id"
       where u."account" = 'inbox.user' and p."status" = 'new' and m."status" in ('pending', 'confirmed')`,
    );
    if ((invitations ?? 0) < spec.invitations) {
      problems.push(`${invitations} pending invitations, expected ${spec.invitations}`);
    }
    return problems;
  });
}

/**
 * Runs VACUUM ANALYZE when a table has never been analysed (the seed does not analyse, and with
 * autovacuum off, as on this machine's server, the planner would guess: following takes 180 ms
 * instead of 0.5 ms). Answers whether it did.
 */
export async function ensureStatistics(url: string): Promise<boolean> {
  return withClient(url, async (client) => {
    const missing = await scalar<number>(
      client,
      `select count(*)::int from pg_stat_user_tables
       where relname in ('users', 'follows', 'meetings', 'participants')
       and last_analyze is null and last_autoanalyze is null`,
    );
    if (!missing) {
      return false;
    }
    await client.query('vacuum analyze');
    return true;
  });
}

/** Runs `npm run seed`'s program (already built) with --reset, its progress on our stderr. */
export async function seed(url: string, spec: DataSpec): Promise<void> {
  const args = [
    'dist/src/db/seed/seed.js',
    '--reset',
    '--users',
    String(spec.users),
    '--follows-per-user',
    String(spec.followsPerUser),
    '--meetings',
    String(spec.meetings),
    '--big-meeting-participants',
    String(spec.bigMeeting),
    '--pending-invitations',
    String(spec.invitations),
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) {
    throw new Error(`seeding ${databaseName(url)} failed (exit code ${code})`);
  }
  await withClient(url, (client) => client.query('vacuum analyze'));
}

/** Ids the scenarios need, read from a seeded database. */
export interface Fixtures {
  demoId: string;
  demoEmail: string;
  inboxEmail: string;
  bigMeetingId: string;
  /** The user with the most meetings (owned or accepted): the caller of "my meetings". */
  busy: { id: string; email: string; meetings: number };
  writerId: string;
  /** Active generated users who get invited by the write scenario. */
  invitees: string[];
}

export async function readFixtures(url: string, invitees: number): Promise<Fixtures> {
  return withClient(url, async (client) => {
    await client.query(
      `insert into "users" ("id", "created_at", "updated_at", "name", "email", "account",
         "password_hash", "roles", "is_active", "is_verified")
       select gen_random_uuid(), date_trunc('milliseconds', now()), date_trunc('milliseconds', now()),
         $1, $2, $3, u."password_hash", 'user', true, true from "users" u where u."account" = 'demo'
       on conflict do nothing`,
      [WRITER.name, WRITER.email, WRITER.account],
    );
    const ids = await client.query<{ account: string; id: string; email: string }>(
      `select "account", "id", "email" from "users" where "account" = any($1)`,
      [FIXED_ACCOUNTS],
    );
    const byAccount = new Map(ids.rows.map((row) => [row.account, row]));
    const demo = byAccount.get('demo');
    const inbox = byAccount.get('inbox.user');
    const writer = byAccount.get(WRITER.account);
    if (!demo || !inbox || !writer) {
      throw new Error('the fixed users demo, inbox.user and bench.writer are not all there');
    }
    const bigMeetingId = await scalar<string>(
      client,
      `select "id" from "meetings" where "owner_id" = $1 and "title" = $2 order by "created_at" limit 1`,
      [demo.id, BIG_MEETING_TITLE],
    );
    if (!bigMeetingId) {
      throw new Error('the big meeting is missing');
    }
    const busy = await client.query<{ id: string; email: string; meetings: number }>(
      `select u."id", u."email", t."meetings" from (
         select "user_id", count(*)::int as "meetings" from (
           select "owner_id" as "user_id", "id" as "meeting_id" from "meetings"
           union select "user_id", "meeting_id" from "participants" where "status" = 'accepted'
         ) mine group by "user_id"
       ) t join "users" u on u."id" = t."user_id"
       where u."is_active" and u."deleted_at" is null and u."account" <> all($1)
         and not starts_with(u."account", $2)
       order by t."meetings" desc, u."id" limit 1`,
      // Not a user the harness added either: their meetings come and go with their scenarios.
      [FIXED_ACCOUNTS, BENCH_ACCOUNT_PREFIX],
    );
    const busyUser = busy.rows[0];
    if (!busyUser) {
      throw new Error('no user has meetings');
    }
    const pool = await client.query<{ id: string }>(
      `select "id" from "users" where "is_active" and "deleted_at" is null
       and "account" ~ '${GENERATED_ACCOUNT}' and "id" <> $1 order by "id" limit $2`,
      [busyUser.id, invitees],
    );
    return {
      demoId: demo.id,
      demoEmail: demo.email,
      inboxEmail: inbox.email,
      bigMeetingId,
      busy: busyUser,
      writerId: writer.id,
      invitees: pool.rows.map((row) => row.id),
    };
  });
}

/** The e-mail address of a user the harness adds ({@link benchUsers}). */
export const benchEmail = (account: string): string => `${account}@example.com`;

/**
 * Users the harness adds beside the seed (made once, with demo's password, {@link benchEmail};
 * accounts of {@link BENCH_ACCOUNT_PREFIX}); their ids in the order given.
 */
export async function benchUsers(
  url: string,
  users: readonly { account: string; name: string }[],
): Promise<string[]> {
  const accounts = users.map((user) => user.account);
  if (accounts.some((account) => !account.startsWith(BENCH_ACCOUNT_PREFIX))) {
    throw new Error(`bench users' accounts begin with "${BENCH_ACCOUNT_PREFIX}"`);
  }
  return withClient(url, async (client) => {
    await client.query(
      `insert into "users" ("id", "created_at", "updated_at", "name", "email", "account",
         "password_hash", "roles", "is_active", "is_verified")
       select gen_random_uuid(), date_trunc('milliseconds', now()), date_trunc('milliseconds', now()),
         t."name", t."email", t."account", u."password_hash", 'user', true, true
       from unnest($1::text[], $2::text[], $3::text[]) t("account", "name", "email"), "users" u
       where u."account" = 'demo'
       on conflict do nothing`,
      [accounts, users.map((user) => user.name), accounts.map(benchEmail)],
    );
    const rows = await client.query<{ account: string; id: string }>(
      `select "account", "id" from "users" where "account" = any($1)`,
      [accounts],
    );
    const byAccount = new Map(rows.rows.map((row) => [row.account, row.id]));
    return accounts.map((account) => {
      const id = byAccount.get(account);
      if (!id) {
        throw new Error(`the bench user ${account} could not be made`);
      }
      return id;
    });
  });
}

/**
 * `count` confirmed meetings owned by `ownerId`, 30 days ahead, made by SQL (so no change is
 * logged and no event sent): the owner and `guests(i)` of meeting i are accepted participants.
 * Their ids in order.
 */
export async function createMeetings(
  url: string,
  ownerId: string,
  count: number,
  options: { title: string; guests?: (i: number) => readonly string[] },
): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const members = ids.flatMap((id, i) =>
    [ownerId, ...(options.guests?.(i) ?? [])].map((userId) => [id, userId] as const),
  );
  await withClient(url, (client) =>
    client.query(
      `with t as (select date_trunc('milliseconds', now()) as now), made as (
         insert into "meetings" ("id", "created_at", "updated_at", "title", "owner_id", "start_time",
           "location", "type", "status")
         select m."id", t.now, t.now, $2 || ' ' || m."n", $1, t.now + interval '30 days',
           'Bench Room', 'team-meeting', 'confirmed'
         from unnest($3::uuid[]) with ordinality m("id", "n"), t
         returning "id", "created_at"
       )
       insert into "participants" ("id", "created_at", "updated_at", "meeting_id", "user_id", "status")
       select gen_random_uuid(), made."created_at", made."created_at", p."meeting_id", p."user_id",
         'accepted'
       from unnest($4::uuid[], $5::uuid[]) p("meeting_id", "user_id")
       join made on made."id" = p."meeting_id"`,
      [ownerId, options.title, ids, members.map((m) => m[0]), members.map((m) => m[1])],
    ),
  );
  return ids;
}

/** `count` fresh confirmed meetings owned by the writer (the owner the only participant). */
export const createWriteMeetings = (
  url: string,
  writerId: string,
  count: number,
): Promise<string[]> => createMeetings(url, writerId, count, { title: 'Bench write meeting' });

/** Removes everything the write scenario made (the writer's meetings and their participants). */
export async function cleanupWrites(url: string, writerId: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query('delete from "meetings" where "owner_id" = $1', [writerId]);
    await client.query('vacuum analyze "meetings", "participants"');
  });
}

/** Statuses after a write check, to compare what the service and the baseline stored. */
export async function meetingState(
  url: string,
  meetingId: string,
): Promise<{ status: string; participants: string[] }> {
  return withClient(url, async (client) => {
    const status = await scalar<string>(
      client,
      'select "status"::text from "meetings" where "id" = $1',
      [meetingId],
    );
    const participants = await client.query<{ user_id: string; status: string }>(
      `select "user_id", "status"::text as "status" from "participants" where "meeting_id" = $1
       order by "created_at", "id"`,
      [meetingId],
    );
    return {
      status: status ?? 'missing',
      participants: participants.rows.map((row) => `${row.user_id}:${row.status}`),
    };
  });
}
