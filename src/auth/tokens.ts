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

const ACCESS_TYPE = 'at+jwt';
const REFRESH_TYPE = 'refresh+jwt';
const EXTERNAL_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/** Who a verified access token names: a user id, or (external issuers only) an e-mail. */
export type TokenSubject = { userId: string } | { email: string };

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
  external: { issuer: string; jwksUrl: string; audience: string | null } | null;
}

export class InvalidTokenError extends Error {}

/** A token already verified: whom it names, and until when (seconds since the epoch). */
interface VerifiedToken {
  subject: TokenSubject;
  expiresAt: number;
}

const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

  async issue(userId: string): Promise<IssuedTokens> {
    const [accessToken, refreshToken] = await Promise.all([
      this.sign(userId, ACCESS_TYPE, this.settings.audience, this.settings.accessTokenTtl),
      this.sign(userId, REFRESH_TYPE, this.settings.issuer, this.settings.refreshTokenTtl),
    ]);
    return {
      accessToken,
      refreshToken,
      tokenType: 'bearer',
      expiresIn: this.settings.accessTokenTtl,
    };
  }

  async verifyAccessToken(token: string): Promise<TokenSubject> {
    const known = this.verified.get(token);
    if (known && known.expiresAt * 1000 > Date.now()) {
      return known.subject;
    }
    const subject = await this.verifyUncached(token);
    const { exp } = decodeJwt(token);
    if (typeof exp === 'number') {
      this.verified.set(token, { subject, expiresAt: exp });
    }
    return subject;
  }

  private async verifyUncached(token: string): Promise<TokenSubject> {
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
      if (typeof payload.sub === 'string' && UUID.test(payload.sub)) {
        return { userId: payload.sub.toLowerCase() };
      }
      if (typeof payload['email'] === 'string') {
        return { email: payload['email'].trim().toLowerCase() };
      }
      throw new InvalidTokenError('token names no user');
    }
    return { userId: await this.verifyOwn(token, ACCESS_TYPE, this.settings.audience) };
  }

  verifyRefreshToken(token: string): Promise<string> {
    return this.verifyOwn(token, REFRESH_TYPE, this.settings.issuer);
  }

  private sign(userId: string, typ: string, audience: string, ttl: number): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: this.key.alg, kid: this.key.kid, typ })
      .setIssuer(this.settings.issuer)
      .setSubject(userId)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${ttl}s`)
      .setJti(randomUUID())
      .sign(this.key.privateKey);
  }

  private async verifyOwn(token: string, typ: string, audience: string): Promise<string> {
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
      return payload.sub;
    } catch (error) {
      throw error instanceof InvalidTokenError ? error : new InvalidTokenError(String(error));
    }
  }
}
