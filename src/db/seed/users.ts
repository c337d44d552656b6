import { randomInt, randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { User } from '../../modules/user/user.entity';
import { Role } from '../../modules/user/user.rules';
import { type PlannedRecord, plannedInsert } from './planned';
import type { Random } from './random';
import { insertBatch, query } from './sql';
import { DAY, MINUTE, SECOND, toMillis } from './time';
import { CITIES, FIRST_NAMES, INTERESTS, JOB_TITLES, LAST_NAMES } from './vocabulary';

/** The one password of every seeded user, hashed once and shared. */
export const SEED_PASSWORD = 'password123';

/** What later phases need to know about a user. */
export interface SeedUser {
  id: string;
  account: string;
  /** When the account was created (ms since the epoch). */
  createdAt: number;
}

/** The fixed users people log in with. */
export const FIXED_USERS = {
  demo: { name: 'Demo User Account', account: 'demo', email: 'demo@example.com', role: Role.USER },
  inbox: {
    name: 'Inbox Test User',
    account: 'inbox.user',
    email: 'inbox@example.com',
    role: Role.USER,
  },
  admin: {
    name: 'Administrator Account',
    account: 'admin',
    email: 'admin@example.com',
    role: Role.ADMIN,
  },
} as const;

export type FixedUserKey = keyof typeof FIXED_USERS;

const ACCOUNT_MAX = 32;
const NAME_MIN = 8;
const NAME_MAX = 40;

/** Generated users are created between these many days ago (before any seeded meeting). */
const USER_AGE_DAYS = { min: 60, max: 3 * 365 };

/**
 * Inserts the fixed users unless they exist (ON CONFLICT DO NOTHING) and returns them as stored.
 * `inserted` counts the ones that were new.
 */
export async function ensureFixedUsers(
  pool: Pool,
  passwordHash: string,
  now: number,
): Promise<{ users: Record<FixedUserKey, SeedUser>; inserted: number }> {
  const keys = Object.keys(FIXED_USERS) as FixedUserKey[];
  const records = keys.map((key, i): PlannedRecord<User> => {
    const fixed = FIXED_USERS[key];
    const createdAt = now - (4 * 365 - i) * DAY;
    return {
      id: randomUUID(),
      createdAt,
      updatedAt: createdAt + 7 * DAY + i * MINUTE,
      name: fixed.name,
      email: fixed.email,
      account: fixed.account,
      passwordHash,
      roles: fixed.role,
      isActive: true,
      isVerified: true,
      bio: `Seeded ${fixed.account} account. Password: ${SEED_PASSWORD}`,
      dob: null,
      phone: null,
    };
  });
  const inserted = await insertBatch(pool, plannedInsert(User, records, true));
  const stored = await query(
    pool,
    `select "id", "account", "created_at" from "users" where lower("account") in (${keys.map(() => '?').join(',')})`,
    keys.map((key) => FIXED_USERS[key].account),
  );
  const byAccount = new Map(stored.map((row) => [String(row['account']).toLowerCase(), row]));
  const users = {} as Record<FixedUserKey, SeedUser>;
  for (const key of keys) {
    const row = byAccount.get(FIXED_USERS[key].account);
    if (!row) {
      throw new Error(
        `could not create the user "${FIXED_USERS[key].account}": its e-mail address ${FIXED_USERS[key].email} belongs to another account (run with --reset)`,
      );
    }
    users[key] = {
      id: String(row['id']),
      account: FIXED_USERS[key].account,
      createdAt: toMillis(row['created_at']),
    };
  }
  return { users, inserted };
}

/**
 * A suffix that keeps this run's generated accounts apart from earlier runs' ones: none on a
 * database without generated accounts, otherwise "r" and digits not used yet. Generated accounts
 * look like "first.last[.token].n"; names hold no digits and tokens do, so they never collide.
 */
export async function chooseAccountToken(pool: Pool): Promise<string> {
  const [earlier] = await query(
    pool,
    `select exists(select 1 from "users" where "account" ~ '^[a-z.]+\\.[0-9]+$') as "found"`,
  );
  if (!earlier?.['found']) {
    return '';
  }
  for (;;) {
    const token = `r${randomInt(1000, 100_000)}`;
    const [taken] = await query(
      pool,
      `select exists(select 1 from "users" where "account" like ?) as "found"`,
      [`%.${token}.%`],
    );
    if (!taken?.['found']) {
      return token;
    }
  }
}

const ascii = (word: string): string => word.toLowerCase().replace(/[^a-z]/g, '');

/** "first.last.n" (or "first.last.token.n"), shortened to the 32 characters an account allows. */
export function accountFor(first: string, last: string, token: string, n: number): string {
  const suffix = token ? `.${token}.${n}` : `.${n}`;
  const base = `${ascii(first)}.${ascii(last)}`
    .slice(0, ACCOUNT_MAX - suffix.length)
    .replace(/\.+$/, '');
  return `${base}${suffix}`;
}

/** "First Last", with a middle initial now and then, and always when needed for 8 characters. */
function displayName(rng: Random, first: string, last: string): string {
  const initial = String.fromCharCode(65 + rng.int(0, 25));
  const plain = `${first} ${last}`;
  const name = rng.chance(0.15) || plain.length < NAME_MIN ? `${first} ${initial}. ${last}` : plain;
  return name.length > NAME_MAX ? plain.slice(0, NAME_MAX) : name;
}

function dateOfBirth(rng: Random, now: number): string {
  const year = new Date(now).getUTCFullYear() - rng.int(20, 65);
  const month = String(rng.int(1, 12)).padStart(2, '0');
  const day = String(rng.int(1, 28)).padStart(2, '0');
  return `${year}-${month}-${day}`;
}

function phoneNumber(rng: Random): string {
  const country = rng.pick(['1', '44', '49', '33', '34', '351', '81', '55']);
  return `+${country} ${rng.int(100, 999)} ${rng.int(1_000_000, 9_999_999)}`;
}

function biography(rng: Random): string {
  const first = rng.pick(INTERESTS);
  let second = rng.pick(INTERESTS);
  if (second === first) {
    second = 'long walks';
  }
  return `${rng.pick(JOB_TITLES)} in ${rng.pick(CITIES)}. Into ${first} and ${second}.`;
}

/** One generated user: the record to insert and what later phases need. */
export interface GeneratedUser {
  user: SeedUser;
  record: PlannedRecord<User>;
}

/** `count` realistic users, numbered from 1, sharing one password hash. */
export function* generateUsers(
  rng: Random,
  count: number,
  token: string,
  passwordHash: string,
  now: number,
): Generator<GeneratedUser> {
  for (let n = 1; n <= count; n += 1) {
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    const account = accountFor(first, last, token, n);
    const createdAt = now - rng.between(USER_AGE_DAYS.min, USER_AGE_DAYS.max) * DAY;
    // Most profiles were touched again some time after sign-up.
    const updatedAt = createdAt + SECOND + rng.float() ** 2 * (now - createdAt - SECOND);
    const user: SeedUser = { id: randomUUID(), account, createdAt };
    yield {
      user,
      // The random draws below happen in this order (an object literal is evaluated in order).
      record: {
        id: user.id,
        createdAt,
        updatedAt,
        name: displayName(rng, first, last),
        email: `${account}@example.com`,
        account,
        passwordHash,
        roles: Role.USER,
        isActive: !rng.chance(0.02),
        isVerified: !rng.chance(0.08),
        bio: rng.chance(0.35) ? biography(rng) : null,
        dob: rng.chance(0.5) ? dateOfBirth(rng, now) : null,
        phone: rng.chance(0.4) ? phoneNumber(rng) : null,
      },
    };
  }
}
