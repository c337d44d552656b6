import { randomUUID } from 'node:crypto';
import type { CountAttempt } from '../../platform/auth/attempt-limiter';
import type { PasswordHasher } from '../../platform/auth/password';
import {
  InvalidTokenError,
  type IssuedTokens,
  type RefreshClaims,
  type TokenService,
} from '../../platform/auth/tokens';
import { UnauthenticatedError, ValidationFailedError } from '../../platform/shared/errors';
import { isAdmin, isVisibleUser, type UserRecord, type UserStore } from '../user';
import type { ChangePasswordInput } from './auth.inputs';
import type { StoreSet } from '../../platform/composition/context';
import type { RefreshTokenStore } from './refresh-token.store';

/** The stores sign-in works with. */
export type AuthStores = StoreSet<{ users: UserStore; refreshTokens: RefreshTokenStore }>;
type Stores = AuthStores;

/** Expired refresh tokens each sign-in deletes: bounded work, enough to keep the table small. */
const PRUNE_BATCH = 100;

const invalidToken = () => new UnauthenticatedError('INVALID_TOKEN');

/**
 * Sign-in with a password, and the sessions it starts: refresh tokens that rotate on every use,
 * end with logout or a password change, and revoke their family when a retired one comes back.
 */
export class AuthService {
  constructor(
    private readonly stores: Stores,
    private readonly passwords: PasswordHasher,
    private readonly tokens: TokenService,
    private readonly limit: CountAttempt,
    /** ADMIN_EMAILS: these accounts become admins when they sign in, once verified. */
    private readonly adminEmails: readonly string[] = [],
  ) {}

  /** `username` is an e-mail address or an account name; failures never say which part was wrong. */
  async login(username: string, password: string): Promise<IssuedTokens> {
    const name = username.trim().toLowerCase();
    await this.limit({ action: 'login', account: name });
    const user = await this.stores.users.withPasswordHash(
      name.includes('@') ? { email: name } : { account: name },
    );
    const usable = isVisibleUser(user);
    const ok = await this.passwords.verify(usable ? user.passwordHash : null, password);
    if (!usable || !ok) {
      throw new UnauthenticatedError('INCORRECT_EMAIL_OR_PASSWORD');
    }
    // A listed address makes an admin once its owner has shown it is theirs (verified).
    if (user.emailVerified && !isAdmin(user) && this.adminEmails.includes(user.email)) {
      await this.stores.users.grantAdmin(user.email);
    }
    const tokens = await startSession(this.stores, this.tokens, user.id);
    // Opportunistic clean-up, after the answer is secured.
    await this.stores.refreshTokens.pruneExpired(PRUNE_BATCH);
    return tokens;
  }

  /**
   * Trades a live refresh token for a new pair and retires it. A retired token presented again
   * after the reuse interval means it leaked: the whole family is revoked (RFC 9700 §4.14.2).
   */
  async refresh(refreshToken: string): Promise<IssuedTokens> {
    await this.limit({ action: 'refresh' });
    const claims = await this.verify(refreshToken);
    const familyId = await this.familyOf(claims);
    const { tokens, refresh } = await this.tokens.issue(claims.userId, familyId);
    const rotated = await this.stores.refreshTokens.rotate({
      jti: claims.jti,
      familyId,
      userId: claims.userId,
      successor: refresh,
      reuseInterval: this.tokens.refreshReuseInterval,
    });
    if (!rotated) {
      const state = await this.stores.refreshTokens.state(claims.jti);
      if (state?.used && !state.revoked) {
        await this.stores.refreshTokens.revokeFamilyOf(claims.jti);
      }
      throw invalidToken();
    }
    return tokens;
  }

  /** Ends the session a refresh token belongs to; false when it had already ended. */
  async logout(refreshToken: string): Promise<boolean> {
    const claims = await this.verify(refreshToken);
    await this.familyOf(claims);
    return (await this.stores.refreshTokens.revokeFamilyOf(claims.jti)) > 0;
  }

  /**
   * Changes the caller's password and ends all their sessions, in one transaction; answers a new
   * session so the device that made the change stays signed in. Counted like a sign-in attempt.
   */
  async changePassword(
    viewer: UserRecord,
    input: ChangePasswordInput,
  ): Promise<{ user: UserRecord; tokens: IssuedTokens }> {
    await this.limit({ action: 'login', account: viewer.email });
    return this.stores.transaction(async (tx) => {
      // Locked, so two concurrent changes each check the password the other may have replaced.
      const { user, passwordHash } = await tx.users.lockWithPasswordHash(viewer.id);
      if (!(await this.passwords.verify(passwordHash, input.currentPassword))) {
        // The caller is signed in; only this field is wrong (UNAUTHENTICATED would end the session).
        throw ValidationFailedError.of('currentPassword', 'MISMATCH');
      }
      const record = await tx.users.setPasswordHash(
        user,
        await this.passwords.hash(input.newPassword),
      );
      await tx.refreshTokens.revokeUser(user.id);
      return { user: record, tokens: await startSession(tx, this.tokens, user.id) };
    });
  }

  /** A refresh token's claims, once its signature holds and its user may still sign in. */
  private async verify(refreshToken: string): Promise<RefreshClaims> {
    let claims: RefreshClaims;
    try {
      claims = await this.tokens.verifyRefreshToken(refreshToken);
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        throw invalidToken();
      }
      throw error;
    }
    const user = await this.stores.users.bySubject({ userId: claims.userId });
    if (!isVisibleUser(user)) {
      throw invalidToken();
    }
    return { ...claims, userId: user.id };
  }

  /**
   * The family of a token. A token without one was signed before refresh tokens were recorded:
   * it is recorded now, unused, in a family of its own, so it rotates like any other from here.
   */
  private async familyOf(claims: RefreshClaims): Promise<string> {
    if (claims.familyId) {
      return claims.familyId;
    }
    await this.stores.refreshTokens.adopt(claims, randomUUID());
    const state = await this.stores.refreshTokens.state(claims.jti);
    if (!state) {
      throw invalidToken();
    }
    return state.familyId;
  }
}

/** Issues a token pair that starts a new family (a sign-in). */
async function startSession(
  stores: Stores,
  tokens: TokenService,
  userId: string,
): Promise<IssuedTokens> {
  const issued = await tokens.issue(userId, randomUUID());
  await stores.refreshTokens.start(userId, issued.refresh);
  return issued.tokens;
}
