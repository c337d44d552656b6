import type { EntityManager } from '@mikro-orm/postgresql';
import type { CountAttempt } from '../../auth/attempt-limiter';
import type { PasswordHasher } from '../../auth/password';
import { onUniqueViolation } from '../../shared/db-errors';
import { ConflictError } from '../../shared/errors';
import { readAll } from '../../db/records';
import { selectRows } from '../../db/select';
import { type Page, pageClause, pageParams } from '../../shared/pagination';
import { type UserRecord, userRecords } from './user.record';
import { User } from './user.entity';
import type { RegisterArgs } from './user.inputs';
import { VISIBLE_USER, visibleUserSql } from './user.rules';

/** `%`, `_` and `\` are literal characters in a search text. */
export const escapeLikePattern = (text: string): string => text.replace(/[\\%_]/g, '\\$&');

const emailTaken = () => new ConflictError('EMAIL_ALREADY_REGISTERED', 'Email already registered');
const accountTaken = () =>
  new ConflictError('ACCOUNT_NAME_ALREADY_TAKEN', 'Account name already taken');

const users = userRecords();
const MATCHES =
  `${visibleUserSql('u')} ` + `and (u."name" ilike ? or u."account" ilike ? or u."email" ilike ?)`;
const SEARCH = {
  select: `select ${users.select('u')} from "users" u where ${MATCHES} order by u."name", u."id"`,
  // Two or three characters: the total kept by the user_search_grams triggers (migration
  // 20261122060000); longer texts are selective, so counting their matches is cheap.
  count:
    `select case when char_length(lower(?)) between 2 and 3 ` +
    `then coalesce((select g."users" from "user_search_grams" g where g."gram" = lower(?)), 0) ` +
    `else (select count(*)::int from "users" u where ${MATCHES}) end as "total"`,
};

export class UserService {
  constructor(
    private readonly em: EntityManager,
    private readonly passwords: PasswordHasher,
    private readonly limit: CountAttempt,
  ) {}

  /** Registers a user; only the listed fields are read, so no privilege can be asked for. */
  async register(args: RegisterArgs): Promise<User> {
    const email = args.email.trim().toLowerCase();
    await this.limit({ action: 'register', account: email });
    const account = args.account.trim().toLowerCase();
    const existing = await this.em.find(
      User,
      { $or: [{ email }, { account }] },
      { fields: ['email', 'account'] },
    );
    if (existing.some((user) => user.email === email)) {
      throw emailTaken();
    }
    if (existing.some((user) => user.account === account)) {
      throw accountTaken();
    }
    const user = this.em.create(User, {
      name: args.name.trim(),
      email,
      account,
      passwordHash: await this.passwords.hash(args.password),
    });
    await onUniqueViolation(() => this.em.flush(), {
      users_email_unique: emailTaken,
      users_account_unique: accountTaken,
    });
    return user;
  }

  byAccount(account: string): Promise<User> {
    return this.em.findOneOrFail(User, { account: account.trim().toLowerCase(), ...VISIBLE_USER });
  }

  /** Case-insensitive substring search over name, account and e-mail; ordered by name, id. */
  async search(q: string, page: Page): Promise<{ data: UserRecord[]; count: number }> {
    const text = q.trim();
    const pattern = `%${escapeLikePattern(text)}%`;
    const matches = [pattern, pattern, pattern];
    const [rows, counted] = await Promise.all([
      selectRows(
        this.em,
        `${SEARCH.select}${pageClause(page)}`,
        [...matches, ...pageParams(page)],
        {
          prepared: false,
        },
      ),
      selectRows(this.em, SEARCH.count, [text, text, ...matches], { prepared: false }),
    ]);
    return { data: readAll(users, rows), count: Number(counted[0]?.['total'] ?? 0) };
  }
}
