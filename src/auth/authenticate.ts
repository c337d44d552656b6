import type { UserRecord, UserStore } from '../modules/user/user.store';
import { type AccessClaims, InvalidTokenError, type TokenService } from './tokens';
import { isVisibleUser } from '../modules/user/user.rules';

/** The outcome of reading a request's bearer token. */
export type AuthState =
  | { user: UserRecord; failure: null }
  | { user: null; failure: 'NOT_AUTHENTICATED' | 'INVALID_TOKEN' };

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of a well-formed `Authorization: Bearer` header, else null. */
export function bearerToken(header: string | undefined): string | null {
  return (header && BEARER.exec(header)?.[1]) || null;
}

/** Resolves the caller from an `Authorization` header (RFC 6750); never throws for bad tokens. */
export async function authenticate(
  header: string | undefined,
  users: UserStore,
  tokens: TokenService,
): Promise<AuthState> {
  if (!header || !/^Bearer(\s|$)/i.test(header)) {
    return { user: null, failure: 'NOT_AUTHENTICATED' };
  }
  const token = bearerToken(header);
  if (!token) {
    return { user: null, failure: 'INVALID_TOKEN' };
  }
  let claims;
  try {
    claims = await tokens.verifyAccessToken(token);
  } catch (error) {
    if (error instanceof InvalidTokenError) {
      return { user: null, failure: 'INVALID_TOKEN' };
    }
    throw error;
  }
  const user = await userOf(claims, users);
  if (!isVisibleUser(user)) {
    return { user: null, failure: 'INVALID_TOKEN' };
  }
  return { user, failure: null };
}

/**
 * The user a verified token names, null when its session ended. Read from the database on every
 * request (no cache), so a session ended on any instance is refused as soon as that commits.
 */
async function userOf(claims: AccessClaims, users: UserStore): Promise<UserRecord | null> {
  const { subject, sessionId } = claims;
  if (sessionId === null || !('userId' in subject)) {
    return users.bySubject(subject);
  }
  const found = await users.inSession(subject.userId, sessionId);
  return found && !found.sessionEnded ? found.user : null;
}
