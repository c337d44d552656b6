import { type AccessClaims, InvalidTokenError, type TokenService } from './tokens';

/** What a context needs to know of the HTTP request (or connection) it serves. */
export interface RequestInfo {
  authorization: string | undefined;
  /** The client address (after trusted proxies). */
  ip: string;
}

/** The outcome of reading a request's bearer token: the caller `U`, or why there is none. */
export type AuthState<U> =
  | { user: U; failure: null }
  | { user: null; failure: 'NOT_AUTHENTICATED' | 'INVALID_TOKEN' };

/** What any operation's context carries: the outcome of its bearer token. */
export interface AuthContext<U = unknown> {
  auth: AuthState<U>;
}

/**
 * The caller a verified token names, null when there is none any more (its session ended, its
 * user gone or deactivated). Given by the user module: the platform knows tokens, not users.
 */
export type CallerLookup<U> = (claims: AccessClaims) => Promise<U | null>;

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of a well-formed `Authorization: Bearer` header, else null. */
export function bearerToken(header: string | undefined): string | null {
  return (header && BEARER.exec(header)?.[1]) || null;
}

/** Resolves the caller from an `Authorization` header (RFC 6750); never throws for bad tokens. */
export async function authenticate<U>(
  header: string | undefined,
  callerOf: CallerLookup<U>,
  tokens: TokenService,
): Promise<AuthState<U>> {
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
  const user = await callerOf(claims);
  return user === null ? { user: null, failure: 'INVALID_TOKEN' } : { user, failure: null };
}
