import {
  createHash,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  type KeyObject,
  randomUUID,
  sign,
  verify,
} from 'node:crypto';

/**
 * The service's access tokens, done by hand with node:crypto: the same Ed25519 key derived from
 * JWT_SECRET (HKDF-SHA256, salt "meeting-api", info "jwt-signing-key", as src/platform/auth/keys.ts does),
 * the same claims and checks as src/platform/auth/tokens.ts (iss, aud, typ "at+jwt", sub, exp, iat, jti).
 * The harness checks the derived public key against the service's /.well-known/jwks.json.
 */

// DER prefix of a PKCS#8 Ed25519 private key; the 32-byte seed follows it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const ACCESS_TYPE = 'at+jwt';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TokenKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key's `x` (base64url), as published in the JWKS. */
  x: string;
  /** RFC 7638 thumbprint, the `kid` the service puts in its tokens. */
  kid: string;
}

export interface TokenSettings {
  issuer: string;
  audience: string;
}

export function deriveKeys(secret: string): TokenKeys {
  const seed = Buffer.from(hkdfSync('sha256', secret, 'meeting-api', 'jwt-signing-key', 32));
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey);
  const jwk = publicKey.export({ format: 'jwk' });
  const x = String(jwk.x);
  const kid = createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url');
  return { privateKey, publicKey, x, kid };
}

const encodeJson = (value: unknown): string =>
  Buffer.from(JSON.stringify(value)).toString('base64url');

/** An access token for `userId`, as the service would issue it. */
export function signAccessToken(
  keys: TokenKeys,
  settings: TokenSettings,
  userId: string,
  ttlSeconds = 4 * 3600,
): string {
  const now = Math.floor(Date.now() / 1000);
  const header = encodeJson({ alg: 'EdDSA', kid: keys.kid, typ: ACCESS_TYPE });
  const payload = encodeJson({
    iss: settings.issuer,
    sub: userId,
    aud: settings.audience,
    iat: now,
    exp: now + ttlSeconds,
    jti: randomUUID(),
    // A session, as the service's tokens name one, so requests pay for its check
    // (src/modules/user/user.rules.ts); no refresh token records it, so it is never revoked.
    sid: randomUUID(),
  });
  const input = `${header}.${payload}`;
  const signature = sign(null, Buffer.from(input), keys.privateKey).toString('base64url');
  return `${input}.${signature}`;
}

interface Claims {
  iss?: unknown;
  sub?: unknown;
  aud?: unknown;
  exp?: unknown;
  iat?: unknown;
  nbf?: unknown;
  jti?: unknown;
}

function parseJson(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Verifies an access token and returns its subject (a user id), or null when the token is
 * malformed, wrongly signed, expired, or not for this issuer and audience.
 */
export function verifyAccessToken(
  publicKey: KeyObject,
  settings: TokenSettings,
  token: string,
): string | null {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first <= 0 || second <= first + 1 || token.indexOf('.', second + 1) !== -1) {
    return null;
  }
  const header = parseJson(token.slice(0, first));
  if (
    !header ||
    header['alg'] !== 'EdDSA' ||
    typeof header['typ'] !== 'string' ||
    header['typ'].toLowerCase().replace(/^application\//, '') !== ACCESS_TYPE ||
    header['crit'] !== undefined
  ) {
    return null;
  }
  const signature = Buffer.from(token.slice(second + 1), 'base64url');
  if (!verify(null, Buffer.from(token.slice(0, second)), publicKey, signature)) {
    return null;
  }
  const claims = parseJson(token.slice(first + 1, second)) as Claims | null;
  if (!claims) {
    return null;
  }
  const now = Math.floor(Date.now() / 1000);
  const audienceOk =
    claims.aud === settings.audience ||
    (Array.isArray(claims.aud) && claims.aud.includes(settings.audience));
  if (
    claims.iss !== settings.issuer ||
    !audienceOk ||
    typeof claims.exp !== 'number' ||
    claims.exp <= now ||
    typeof claims.iat !== 'number' ||
    claims.jti === undefined ||
    (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > now)) ||
    typeof claims.sub !== 'string' ||
    !UUID.test(claims.sub)
  ) {
    return null;
  }
  return claims.sub;
}
