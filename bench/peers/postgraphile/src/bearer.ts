import type { IncomingMessage } from 'node:http';
import { importJWK, jwtVerify, type KeyLike } from 'jose';

/**
 * The service's access tokens, verified as src/platform/auth/tokens.ts verifies them (jose, EdDSA, typ
 * "at+jwt", issuer, audience, sub/exp/iat/jti required), against the public key the harness
 * passes in (`JWT_PUBLIC_KEY_X`, the JWK `x` that bench/lib/jwt.ts derives from JWT_SECRET).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface BearerSettings {
  publicKeyX: string;
  issuer: string;
  audience: string;
}

/** The caller's user id from `Authorization: Bearer <token>`, or null when it does not verify. */
export type BearerVerifier = (req: IncomingMessage) => Promise<string | null>;

export async function bearerVerifier(settings: BearerSettings): Promise<BearerVerifier> {
  const key = (await importJWK(
    { kty: 'OKP', crv: 'Ed25519', x: settings.publicKeyX },
    'EdDSA',
  )) as KeyLike;
  return async (req) => {
    const header = req.headers.authorization;
    if (header === undefined || !/^bearer /i.test(header)) {
      return null;
    }
    try {
      const { payload } = await jwtVerify(header.slice(7).trim(), key, {
        issuer: settings.issuer,
        audience: settings.audience,
        typ: 'at+jwt',
        algorithms: ['EdDSA'],
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      });
      return typeof payload.sub === 'string' && UUID.test(payload.sub) ? payload.sub : null;
    } catch {
      return null;
    }
  };
}
