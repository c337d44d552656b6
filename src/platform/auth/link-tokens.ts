import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** Where the key of {@link LinkTokens} comes from: the service's signing material. */
export interface LinkKeySource {
  /** The PEM key if any, else the secret (JWT_PRIVATE_KEY, JWT_SECRET). */
  privateKeyPem: string | null;
  secret: string;
}

/** Why a link's token was refused. */
export type LinkTokenRefusal = 'forged' | 'expired';

/** A token's claims as read back: its purpose's fields, with the time it stops being good. */
export type LinkClaims = Record<string, string | number> & { exp: number };

/**
 * Tokens carried by links sent to people (verify an address, answer an invitation): the claims,
 * readable, and an HMAC-SHA256 of them under a key derived (HKDF) from the service's signing
 * material, bound to a purpose, so a token of one purpose is worthless for another. Every
 * instance sharing the material reads what another signed; short enough for a URL.
 */
export class LinkTokens {
  private constructor(private readonly key: Buffer) {}

  static of(source: LinkKeySource): LinkTokens {
    const material = source.privateKeyPem ?? source.secret;
    return new LinkTokens(Buffer.from(hkdfSync('sha256', material, 'meeting-api', 'links', 32)));
  }

  /** `<base64url of the claims' JSON>.<base64url of their MAC>`. */
  sign(purpose: string, claims: LinkClaims): string {
    const body = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
    return `${body}.${this.mac(purpose, body).toString('base64url')}`;
  }

  /** The claims of a token signed for `purpose`, or why it is refused. */
  read(
    purpose: string,
    token: string,
    now = Date.now(),
  ): { claims: LinkClaims } | { refused: LinkTokenRefusal } {
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) {
      return { refused: 'forged' };
    }
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(purpose, body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { refused: 'forged' };
    }
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as LinkClaims;
    return claims.exp * 1000 <= now ? { refused: 'expired' } : { claims };
  }

  private mac(purpose: string, body: string): Buffer {
    return createHmac('sha256', this.key).update(`${purpose}\n${body}`).digest();
  }
}
