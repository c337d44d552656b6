import type { CountAttempt } from '../../auth/attempt-limiter';
import type { PasswordHasher } from '../../auth/password';
import { InvalidTokenError, type IssuedTokens, type TokenService } from '../../auth/tokens';
import { UnauthenticatedError } from '../../shared/errors';
import type { UserStore } from '../user/user.store';
import { isVisibleUser } from '../user/user.rules';

/** Sign-in with a password, and new tokens for a refresh token. */
export class AuthService {
  constructor(
    private readonly users: UserStore,
    private readonly passwords: PasswordHasher,
    private readonly tokens: TokenService,
    private readonly limit: CountAttempt,
  ) {}

  /** `username` is an e-mail address or an account name; failures never say which part was wrong. */
  async login(username: string, password: string): Promise<IssuedTokens> {
    const name = username.trim().toLowerCase();
    await this.limit({ action: 'login', account: name });
    const user = await this.users.withPasswordHash(
      name.includes('@') ? { email: name } : { account: name },
    );
    const usable = isVisibleUser(user);
    const ok = await this.passwords.verify(usable ? user.passwordHash : null, password);
    if (!usable || !ok) {
      throw new UnauthenticatedError('INCORRECT_EMAIL_OR_PASSWORD');
    }
    return this.tokens.issue(user.id);
  }

  async refresh(refreshToken: string): Promise<IssuedTokens> {
    await this.limit({ action: 'refresh' });
    let userId: string;
    try {
      userId = await this.tokens.verifyRefreshToken(refreshToken);
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        throw new UnauthenticatedError('INVALID_TOKEN');
      }
      throw error;
    }
    const user = await this.users.bySubject({ userId });
    if (!isVisibleUser(user)) {
      throw new UnauthenticatedError('INVALID_TOKEN');
    }
    return this.tokens.issue(user.id);
  }
}
