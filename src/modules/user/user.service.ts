import type { EntityManager } from '@mikro-orm/postgresql';
import type { CountAttempt } from '../../auth/attempt-limiter';
import type { PasswordHasher } from '../../auth/password';
import { onUniqueViolation } from '../../shared/db-errors';
import { ConflictError } from '../../shared/errors';
import type { Page } from '../../shared/pagination';
import { User } from './user.entity';
import type { RegisterArgs } from './user.inputs';

/** `%`, `_` and `\` are literal characters in a search text. */
export const escapeLikePattern = (text: string): string => text.replace(/[\\%_]/g, '\\$&');

const emailTaken = () => new ConflictError('EMAIL_ALREADY_REGISTERED', 'Email already registered');
const accountTaken = () =>
  new ConflictError('ACCOUNT_NAME_ALREADY_TAKEN', 'Account name already taken');

/** A user who can be seen by others: active and not deleted. */
const visible = { isActive: true, deletedAt: null } as const;

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
    return this.em.findOneOrFail(User, { account: account.trim().toLowerCase(), ...visible });
  }

  /** Case-insensitive substring search over name, account and e-mail; ordered by name, id. */
  async search(q: string, page: Page): Promise<{ data: User[]; count: number }> {
    const pattern = `%${escapeLikePattern(q.trim())}%`;
    const [data, count] = await this.em.findAndCount(
      User,
      {
        ...visible,
        $or: [
          { name: { $ilike: pattern } },
          { account: { $ilike: pattern } },
          { email: { $ilike: pattern } },
        ],
      },
      { orderBy: { name: 'asc', id: 'asc' }, offset: page.skip, limit: page.limit ?? undefined },
    );
    return { data, count };
  }
}
