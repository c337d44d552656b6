import { randomUUID } from 'node:crypto';
import {
  createRemoteJWKSet,
  decodeJwt,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from 'jose';
import { LRUCache } from 'lru-cache';
import type { SigningKey } from './keys';
import { type AuthChecker, createParameterDecorator } from 'type-graphql';
import { UnauthenticatedError } from '../shared/errors';
import { REFRESH_REUSE_INTERVAL } from './auth.settings';

const ACCESS_TYPE = 'at+jwt';
const REFRESH_TYPE = 'refresh+jwt';
const EXTERNAL_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/** Who a verified access token names: a user id, or (external issuers only) an e-mail. */
export type TokenSubject = { userId: string } | { email: string };

/** What a verified access token says: whom it names, and the sign-in session it belongs to. */
export interface AccessClaims {
  subject: TokenSubject;
  /**
   * The session (`sid` claim: the family of the refresh tokens issued with it), which ends with
   * logout, a password change, deactivation or reuse detection. Null for external issuers' tokens
   * and for this service's tokens signed before they carried one (they live out their lifetime).
   */
  sessionId: string | null;
}

/** The grant's answer (RFC 6749 §5.1). */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  tokenType: 'bearer';
  expiresIn: number;
}

export interface TokenSettings {
  issuer: string;
  audience: string;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  /**
   * Seconds after its first use during which a refresh token may be traded again (a client
   * retrying a response it lost); 0 is strict rotation. Default REFRESH_REUSE_INTERVAL.
   */
  refreshReuseInterval?: number;
  external: { issuer: string; jwksUrl: string; audience: string | null } | null;
}

/** A refresh token just signed, with what its row records. */
export interface IssuedRefresh {
  jti: string;
  familyId: string;
  expiresAt: Date;
}

/** What a verified refresh token of this service says. */
export interface RefreshClaims {
  userId: string;
  jti: string;
  /** The family (`fam` claim); null for tokens signed before refresh tokens were stateful. */
  familyId: string | null;
  expiresAt: Date;
}

export class InvalidTokenError extends Error {}

/** A token already verified: what it says, and until when (seconds since the epoch). */
interface VerifiedToken {
  claims: AccessClaims;
  expiresAt: number;
}

const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A claim that names a session or family (lower-cased); null when absent, refused when bad. */
function uuidClaim(payload: JWTPayload, name: 'sid' | 'fam'): string | null {
  const value = payload[name];
  if (value === undefined) {
    return null;
  }
  if (typeof value !== 'string' || !UUID.test(value)) {
    throw new InvalidTokenError(`bad ${name} claim`);
  }
  return value.toLowerCase();
}

/** Issues this service's tokens and verifies its own and a trusted external issuer's. */
export class TokenService {
  private readonly externalKeys: JWTVerifyGetKey | null;
  // Verifying a signature costs more than the rest of a small request; a token seen before
  // (same bytes, so same signature) is trusted until its own expiry.
  private readonly verified = new LRUCache<string, VerifiedToken>({
    max: VERIFIED_TOKEN_CACHE_SIZE,
  });

  constructor(
    private readonly key: SigningKey,
    readonly settings: TokenSettings,
  ) {
    this.externalKeys = settings.external
      ? createRemoteJWKSet(new URL(settings.external.jwksUrl), { timeoutDuration: 5000 })
      : null;
  }

  get refreshReuseInterval(): number {
    return this.settings.refreshReuseInterval ?? REFRESH_REUSE_INTERVAL;
  }

  /**
   * Signs a token pair of the session `familyId`: the refresh token belongs to that family (see
   * RefreshToken) and the access token names it as its `sid`.
   */
  async issue(
    userId: string,
    familyId: string,
  ): Promise<{ tokens: IssuedTokens; refresh: IssuedRefresh }> {
    const jti = randomUUID();
    const ttl = this.settings.refreshTokenTtl;
    // Whole seconds, as the JWT's exp, so the row expires with the token.
    const expiresAt = new Date((Math.floor(Date.now() / 1000) + ttl) * 1000);
    const [accessToken, refreshToken] = await Promise.all([
      this.sign(userId, ACCESS_TYPE, this.settings.audience, this.settings.accessTokenTtl, {
        sid: familyId,
      }),
      this.sign(userId, REFRESH_TYPE, this.settings.issuer, expiresAt, { fam: familyId }, jti),
    ]);
    return {
      tokens: {
        accessToken,
        refreshToken,
        tokenType: 'bearer',
        expiresIn: this.settings.accessTokenTtl,
      },
      refresh: { jti, familyId, expiresAt },
    };
  }

  async verifyAccessToken(token: string): Promise<AccessClaims> {
    const known = this.verified.get(token);
    if (known && known.expiresAt * 1000 > Date.now()) {
      return known.claims;
    }
    const claims = await this.verifyUncached(token);
    const { exp } = decodeJwt(token);
    if (typeof exp === 'number') {
      this.verified.set(token, { claims, expiresAt: exp });
    }
    return claims;
  }

  private async verifyUncached(token: string): Promise<AccessClaims> {
    let claims: JWTPayload;
    try {
      claims = decodeJwt(token);
    } catch {
      throw new InvalidTokenError('malformed token');
    }
    const external = this.settings.external;
    if (external && this.externalKeys && claims.iss === external.issuer) {
      const { payload } = await jwtVerify(token, this.externalKeys, {
        issuer: external.issuer,
        // Without an audience of its own, an external token must name this API's audience.
        audience: external.audience ?? this.settings.audience,
        algorithms: EXTERNAL_ALGORITHMS,
        // A token that never expires is never accepted, whoever issued it.
        requiredClaims: ['exp'],
      }).catch((error: unknown) => {
        throw new InvalidTokenError(String(error));
      });
      // An external issuer's sessions are its own: its tokens carry no session of ours.
      if (typeof payload.sub === 'string' && UUID.test(payload.sub)) {
        return { subject: { userId: payload.sub.toLowerCase() }, sessionId: null };
      }
      if (typeof payload['email'] === 'string') {
        return { subject: { email: payload['email'].trim().toLowerCase() }, sessionId: null };
      }
      throw new InvalidTokenError('token names no user');
    }
    const payload = await this.verifyOwn(token, ACCESS_TYPE, this.settings.audience);
    return { subject: { userId: payload.sub }, sessionId: uuidClaim(payload, 'sid') };
  }

  /** Checks a refresh token's signature, type, audience and expiry (not whether it is retired). */
  async verifyRefreshToken(token: string): Promise<RefreshClaims> {
    const payload = await this.verifyOwn(token, REFRESH_TYPE, this.settings.issuer);
    if (!UUID.test(payload.jti)) {
      throw new InvalidTokenError('bad token id');
    }
    return {
      userId: payload.sub,
      jti: payload.jti.toLowerCase(),
      familyId: uuidClaim(payload, 'fam'),
      expiresAt: new Date(payload.exp * 1000),
    };
  }

  private sign(
    userId: string,
    typ: string,
    audience: string,
    expires: number | Date,
    claims: { sid: string } | { fam: string },
    jti: string = randomUUID(),
  ): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: this.key.alg, kid: this.key.kid, typ })
      .setIssuer(this.settings.issuer)
      .setSubject(userId)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(typeof expires === 'number' ? `${expires}s` : expires)
      .setJti(jti)
      .sign(this.key.privateKey);
  }

  private async verifyOwn(
    token: string,
    typ: string,
    audience: string,
  ): Promise<JWTPayload & { sub: string; jti: string; exp: number }> {
    try {
      const { payload } = await jwtVerify(token, this.key.publicKey, {
        issuer: this.settings.issuer,
        audience,
        typ,
        algorithms: [this.key.alg],
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      });
      if (typeof payload.sub !== 'string' || !UUID.test(payload.sub)) {
        throw new InvalidTokenError('bad subject');
      }
      if (typeof payload.jti !== 'string' || typeof payload.exp !== 'number') {
        throw new InvalidTokenError('bad claims');
      }
      return { ...payload, sub: payload.sub, jti: payload.jti, exp: payload.exp };
    } catch (error) {
      throw error instanceof InvalidTokenError ? error : new InvalidTokenError(String(error));
    }
  }
}

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

/**
 * Whom a bearer token names (`user <id>`, or `email <address>` for an external issuer's), when
 * its signature and claims hold, else null: the owner of an Idempotency-Key. No statement is
 * sent (whether the user still exists is the operation's question), and a token seen before
 * costs a cache lookup.
 */
export async function tokenSubject(
  tokens: TokenService,
  header: string | undefined,
): Promise<string | null> {
  const token = bearerToken(header);
  if (!token) {
    return null;
  }
  try {
    const { subject } = await tokens.verifyAccessToken(token);
    return 'userId' in subject ? `user ${subject.userId}` : `email ${subject.email}`;
  } catch {
    return null;
  }
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

/**
 * The one check of the caller: the context resolved the bearer token once; a field that needs a
 * caller refuses the operation when there is none. The schema's authChecker runs it for every
 * `@Authorized` field (before arguments are validated); the REST edge runs it only when it answers
 * a request without executing it (variables that do not type-check).
 */
export function requireViewer<U>(context: AuthContext<U>): U {
  if (context.auth.failure !== null) {
    throw new UnauthenticatedError(context.auth.failure);
  }
  return context.auth.user;
}

/** The schema's authChecker: runs before arguments are validated, so an anonymous caller learns nothing about inputs. */
export const viewerAuthChecker: AuthChecker<AuthContext> = ({ context }) => {
  requireViewer(context);
  return true;
};

/** Injects the caller that `@Authorized()` admitted into a resolver method. */
export const Viewer = () =>
  createParameterDecorator<AuthContext>(({ context }) => {
    if (context.auth.user === null) {
      // Not a request failure: a resolver uses @Viewer() without @Authorized().
      throw new Error('@Viewer() needs @Authorized() on the same field');
    }
    return context.auth.user;
  });
