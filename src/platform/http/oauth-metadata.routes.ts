import { type Request, Router } from 'express';
import type { SigningKey } from '../auth/keys';

/** Where the metadata routes are mounted. */
export const WELL_KNOWN_PATH = '/.well-known';

/** The URL of the request's own origin (after trusted proxies), without a trailing slash. */
const originOf = (req: Request): string => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/**
 * Publishes the signing keys (JWKS) and the authorization server metadata (RFC 8414), under
 * WELL_KNOWN_PATH. The metadata names the issuer the tokens carry; its endpoints are under
 * PUBLIC_URL, else under an issuer that is an HTTP URL, else under the origin the request reached
 * (the default issuer is a name, the same for every instance, not an address).
 */
export function oauthMetadataRoutes(
  key: SigningKey,
  issuer: string,
  publicUrl: string | null,
): Router {
  const router = Router();
  const fixedBase = publicUrl ?? (/^https?:\/\//i.test(issuer) ? issuer : null);
  const jwks = { keys: [key.publicJwk] };
  const metadataAt = (base: string) => ({
    issuer,
    token_endpoint: `${base}/api/v1/auth/token`,
    jwks_uri: `${base}${WELL_KNOWN_PATH}/jwks.json`,
    grant_types_supported: ['password', 'refresh_token'],
    response_types_supported: [],
    token_endpoint_auth_methods_supported: ['none'],
    token_endpoint_auth_signing_alg_values_supported: [key.alg],
    scopes_supported: [],
  });
  const fixed = fixedBase === null ? null : metadataAt(fixedBase.replace(/\/$/, ''));
  router.get('/jwks.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(jwks);
  });
  router.get('/oauth-authorization-server', (req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(fixed ?? metadataAt(originOf(req)));
  });
  return router;
}
