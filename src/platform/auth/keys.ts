import { createPrivateKey, createPublicKey, hkdfSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';

/** The key pair this service signs its tokens with, and how it is published. */
export interface SigningKey {
  alg: 'EdDSA' | 'RS256' | 'ES256';
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
}

// DER prefix of a PKCS#8 Ed25519 private key; the 32-byte seed follows it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function algorithmOf(key: KeyObject): SigningKey['alg'] {
  switch (key.asymmetricKeyType) {
    case 'ed25519':
      return 'EdDSA';
    case 'rsa':
      return 'RS256';
    case 'ec':
      if (key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
        return 'ES256';
      }
      break;
    default:
      break;
  }
  throw new Error('JWT_PRIVATE_KEY must be an Ed25519, RSA or P-256 private key');
}

/**
 * The signing key: from a PEM private key when given, else an Ed25519 key derived from the
 * secret, so every instance sharing the secret signs and verifies alike across restarts.
 */
export async function loadSigningKey(options: {
  privateKeyPem: string | null;
  secret: string;
}): Promise<SigningKey> {
  const privateKey = options.privateKeyPem
    ? createPrivateKey(options.privateKeyPem)
    : createPrivateKey({
        key: Buffer.concat([
          ED25519_PKCS8_PREFIX,
          Buffer.from(hkdfSync('sha256', options.secret, 'meeting-api', 'jwt-signing-key', 32)),
        ]),
        format: 'der',
        type: 'pkcs8',
      });
  const publicKey = createPublicKey(privateKey);
  const alg = algorithmOf(privateKey);
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { alg, kid, privateKey, publicKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}
