import type { UserRecord, UserStore } from '../modules/user/user.store';
import { InvalidTokenError, type TokenService } from './tokens';
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
  let subject;
  try {
    subject = await tokens.verifyAccessToken(token);
  } catch (error) {
    if (error instanceof InvalidTokenError) {
      return { user: null, failure: 'INVALID_TOKEN' };
    }
    throw error;
  }
  const user = await users.bySubject(subject);
  if (!isVisibleUser(user)) {
    return { user: null, failure: 'INVALID_TOKEN' };
  }
  return { user, failure: null };
}
