import { Router } from 'express';
import type { SigningKey } from '../auth/keys';

/** Where the metadata routes are mounted. */
export const WELL_KNOWN_PATH = '/.well-known';

/**
 * Publishes the signing keys (JWKS) and the authorization server metadata (RFC 8414), under
 * WELL_KNOWN_PATH.
 */
export function oauthMetadataRoutes(key: SigningKey, issuer: string): Router {
  const router = Router();
  const base = issuer.replace(/\/$/, '');
  const jwks = { keys: [key.publicJwk] };
  const metadata = {
    issuer,
    token_endpoint: `${base}/api/v1/auth/token`,
    jwks_uri: `${base}${WELL_KNOWN_PATH}/jwks.json`,
    grant_types_supported: ['password', 'refresh_token'],
    response_types_supported: [],
    token_endpoint_auth_methods_supported: ['none'],
    token_endpoint_auth_signing_alg_values_supported: [key.alg],
    scopes_supported: [],
  };
  router.get('/jwks.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(jwks);
  });
  router.get('/oauth-authorization-server', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(metadata);
  });
  return router;
}
