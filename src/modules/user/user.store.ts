import type { EntityManager } from '@mikro-orm/postgresql';
import {
  readAll,
  arrayLiteral,
  byIds,
  type ByIds,
  executeRows,
  selectByIds,
  selectRows,
} from '../../platform/sql/rows';
import {
  hiddenColumnOf,
  type ReadModel,
  readerOf,
  tableOf,
  toReadModel,
} from '../../platform/sql/read-model';
import {
  type KeysetOrder,
  readSlice,
  type Slice,
  type SliceRequest,
} from '../../platform/sql/keyset';
import { type Page, pageClause, pageParams } from '../../platform/shared/pagination';
import { User } from './user.entity';
import { Role, VISIBLE_USER, visibleUserSql } from './user.rules';
import { NotFoundError } from '../../platform/shared/errors';
import DataLoader from 'dataloader';
import { inKeyOrder, KnownLoader } from '../../platform/shared/known-loader';
import type { MailTopic } from './mail-preferences';

/** A user as queries and mutations answer it (never the password hash). */
export type UserRecord = ReadModel<User>;

/** What asking for a user who is not there (or not visible) answers. */
export const userNotFound = () => new NotFoundError('USER_NOT_FOUND', 'User not found');

/** The fields a registration writes. */
export type NewUser = Pick<User, 'name' | 'email' | 'account' | 'passwordHash'>;

/** What a user may change of their own profile (absent: unchanged; null: cleared). */
export type ProfileChanges = Partial<
  Pick<
    User,
    | 'name'
    | 'bio'
    | 'phone'
    | 'dob'
    | 'avatarPhotoId'
    | 'shareAvailability'
    | 'timeZone'
    | 'workingHours'
    | 'mailMuted'
  >
>;

/** `%`, `_` and `\` are literal characters in a search text. */
export const escapeLikePattern = (text: string): string => text.replace(/[\\%_]/g, '\\$&');

const users = readerOf(User);
const SELECT = `select ${users.select('u')} from "users" u`;
const BY_IDS = byIds(`${SELECT} where u."id" {match}`);
const BY_EMAIL = `${SELECT} where u."email" = ?`;
// The token's user and whether its session ended, in the one statement every request runs anyway:
// a probe of the partial index of revoked refresh tokens (refresh_tokens_revoked_family_idx).
const IN_SESSION =
  `select ${users.select('u')}, exists (select 1 from "refresh_tokens" r ` +
  `where r."family_id" = ? and r."revoked_at" is not null) as "sessionEnded" ` +
  `from "users" u where u."id" = ?`;
const PASSWORD_HASH = hiddenColumnOf(User, 'passwordHash');
const LOCK_WITH_PASSWORD_HASH =
  `select ${users.select('u')}, u."${PASSWORD_HASH}" as "passwordHash" from "users" u ` +
  `where u."id" = ? for update`;
const SET_PASSWORD_HASH =
  `update "${tableOf(User)}" set "${PASSWORD_HASH}" = ?, ` +
  `"${users.columnName('updatedAt')}" = ? where "id" = ?`;
const GRANT_ADMIN =
  `update "${tableOf(User)}" set "${users.columnName('roles')}" = ?, ` +
  `"${users.columnName('updatedAt')}" = now() where "email" = ? returning "id"`;
const COUNT_VISIBLE =
  `select count(*)::int as "n" from "users" u ` +
  `where u."id" = any(?::uuid[]) and ${visibleUserSql('u')}`;
const MATCHES =
  `${visibleUserSql('u')} ` + `and (u."name" ilike ? or u."account" ilike ? or u."email" ilike ?)`;
const SEARCH = {
  select: `${SELECT} where ${MATCHES} order by u."name", u."id"`,
  // Two or three characters: the total kept by the user_search_grams triggers (migration
  // 20261122060000); longer texts are selective, so counting their matches is cheap.
  count:
    `select case when char_length(lower(?)) between 2 and 3 ` +
    `then coalesce((select g."users" from "user_search_grams" g where g."gram" = lower(?)), 0) ` +
    `else (select count(*)::int from "users" u where ${MATCHES}) end as "total"`,
};
const followCount = (column: 'follower_id' | 'following_id'): ByIds =>
  byIds(
    `select f."${column}" as "id", count(*)::int as "total" from "follows" f ` +
      `where f."${column}" {match} group by f."${column}"`,
  );
const FOLLOW_COUNTS = {
  follower: followCount('follower_id'),
  following: followCount('following_id'),
};

const BY_NAME: KeysetOrder<UserRecord> = {
  columns: [
    { sql: 'u."name"', key: 'name', type: 'text' },
    { sql: 'u."id"', key: 'id', type: 'uuid' },
  ],
  direction: 'asc',
};

/** Every read and write of users: the one place their SQL and the visibility predicate meet. */
export class UserStore {
  constructor(private readonly em: EntityManager) {}

  /** Users by id (any state: loaders serve ids that records already reference). */
  async byIds(ids: readonly string[]): Promise<UserRecord[]> {
    return readAll(users, await selectByIds(this.em, BY_IDS, ids));
  }

  /** The user a token names, by id or (older tokens) by e-mail, in any state. */
  async bySubject(subject: { userId: string } | { email: string }): Promise<UserRecord | null> {
    const rows = await selectRows(this.em, 'userId' in subject ? BY_IDS.one : BY_EMAIL, [
      'userId' in subject ? subject.userId : subject.email,
    ]);
    return rows[0] ? users.read(rows[0]) : null;
  }

  /**
   * The user a token of the session `sessionId` names, in any state, and whether that session
   * ended (its refresh token family was revoked); null when there is no such user.
   */
  async inSession(
    userId: string,
    sessionId: string,
  ): Promise<{ user: UserRecord; sessionEnded: boolean } | null> {
    const [row] = await selectRows(this.em, IN_SESSION, [sessionId, userId]);
    const user = row ? users.read(row) : null;
    return user && row ? { user, sessionEnded: row['sessionEnded'] === true } : null;
  }

  /** A visible user by id or account name; USER_NOT_FOUND otherwise. */
  async visible(by: { id: string } | { account: string }): Promise<UserRecord> {
    return toReadModel(await this.em.findOneOrFail(User, { ...by, ...VISIBLE_USER }));
  }

  /** How many of the ids name visible users. */
  async countVisible(ids: readonly string[]): Promise<number> {
    const [row] = await selectRows(this.em, COUNT_VISIBLE, [arrayLiteral(ids)]);
    return Number(row?.['n'] ?? 0);
  }

  /** A user with the password hash, for signing in by e-mail or account name. */
  withPasswordHash(by: { email: string } | { account: string }): Promise<User | null> {
    return this.em.findOne(User, by, { populate: ['passwordHash'] });
  }

  /** A user and the password hash, locked until the transaction ends (a password change). */
  async lockWithPasswordHash(id: string): Promise<{ user: UserRecord; passwordHash: string }> {
    const [row] = await selectRows(this.em, LOCK_WITH_PASSWORD_HASH, [id]);
    const user = row ? users.read(row) : null;
    if (!row || !user) {
      throw userNotFound();
    }
    return { user, passwordHash: String(row['passwordHash']) };
  }

  /** Writes a new password hash for a user (with a new `updatedAt`), and answers the user. */
  async setPasswordHash(user: UserRecord, passwordHash: string): Promise<UserRecord> {
    const updatedAt = new Date().toISOString();
    await executeRows(this.em, SET_PASSWORD_HASH, [passwordHash, updatedAt, user.id]);
    return { ...user, updatedAt };
  }

  /** Makes the user with this (lower-cased) e-mail address an admin; whether there was one. */
  async grantAdmin(email: string): Promise<boolean> {
    const rows = await executeRows(this.em, GRANT_ADMIN, [Role.ADMIN, email]);
    return rows.length > 0;
  }

  /** Changes profile fields of a user; USER_NOT_FOUND when there is no such user. */
  async updateProfile(id: string, changes: ProfileChanges): Promise<UserRecord> {
    const user = await this.em.findOneOrFail(User, { id });
    this.em.assign(user, changes);
    await this.em.flush();
    return toReadModel(user);
  }

  /**
   * Turns one kind of mail off for a user (already off: no change); false when there is no
   * such user.
   */
  async mute(id: string, topic: MailTopic): Promise<boolean> {
    const rows = await executeRows(
      this.em,
      `update "users" set "mail_muted" = case when ?::text = any("mail_muted") then "mail_muted" ` +
        `else array_append("mail_muted", ?::text) end where "id" = ? returning 1`,
      [topic, topic, id],
    );
    return rows.length > 0;
  }

  /** Which of an e-mail address and an account name are taken. */
  async taken(email: string, account: string): Promise<{ email: boolean; account: boolean }> {
    const existing = await this.em.find(
      User,
      { $or: [{ email }, { account }] },
      { fields: ['email', 'account'] },
    );
    return {
      email: existing.some((user) => user.email === email),
      account: existing.some((user) => user.account === account),
    };
  }

  /**
   * Marks the user's address verified, if it is still `email` (a link sent to an address the
   * user has since changed proves nothing); the user as it now is, or null.
   */
  async markEmailVerified(id: string, email: string): Promise<UserRecord | null> {
    const [row] = await executeRows(
      this.em,
      `update "users" u set "email_verified" = true, "updated_at" = case when u."email_verified" ` +
        `then u."updated_at" else now() end where u."id" = ? and u."email" = ? ` +
        `returning ${users.select('u')}`,
      [id, email],
    );
    return row ? users.read(row) : null;
  }

  /** Inserts a user (unique violations surface as the driver's exception). */
  async create(fields: NewUser): Promise<UserRecord> {
    const user = this.em.create(User, fields);
    await this.em.flush();
    return toReadModel(user);
  }

  /** A page of visible users matching a text in name, account or e-mail, and the total. */
  async search(text: string, page: Page): Promise<{ data: UserRecord[]; count: number }> {
    const pattern = `%${escapeLikePattern(text)}%`;
    const matches = [pattern, pattern, pattern];
    // ilike patterns plan badly as generic plans: not prepared.
    const [rows, count] = await Promise.all([
      selectRows(
        this.em,
        `${SEARCH.select}${pageClause(page)}`,
        [...matches, ...pageParams(page)],
        {
          prepared: false,
        },
      ),
      this.countMatches(text, pattern),
    ]);
    return { data: readAll(users, rows), count };
  }

  /** A slice of the visible users matching a text, by name, and their count. */
  async searchSlice(
    text: string,
    request: SliceRequest,
  ): Promise<{ slice: Slice<UserRecord>; count: () => Promise<number> }> {
    const pattern = `%${escapeLikePattern(text)}%`;
    const query = {
      select: SELECT,
      where: MATCHES,
      params: [pattern, pattern, pattern],
      prepared: false,
    };
    const slice = await readSlice(this.em, query, BY_NAME, users, request);
    return { slice, count: () => this.countMatches(text, pattern) };
  }

  private async countMatches(text: string, pattern: string): Promise<number> {
    const rows = await selectRows(this.em, SEARCH.count, [text, text, pattern, pattern, pattern], {
      prepared: false,
    });
    return Number(rows[0]?.['total'] ?? 0);
  }

  /** How many users each user follows (`follower`) or is followed by (`following`). */
  async followCounts(side: 'follower' | 'following', ids: readonly string[]): Promise<number[]> {
    const rows = await selectByIds(this.em, FOLLOW_COUNTS[side], ids);
    const totals = new Map(rows.map((row) => [row['id'] as string, Number(row['total'])]));
    return ids.map((id) => totals.get(id) ?? 0);
  }
}

/** A request's loaders of users and their follow counts. */
export function userLoaders(stores: { readonly users: UserStore }) {
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

/** A request's loaders of users (userLoaders). */
export type UserLoaders = ReturnType<typeof userLoaders>;
