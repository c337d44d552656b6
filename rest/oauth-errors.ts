import type { Response } from 'express';
import type { GraphQLError } from 'graphql';

/** RFC 6749 §5.2 error codes used by the token endpoint. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'slow_down'
  | 'server_error'
  | 'temporarily_unavailable';

const descriptions: Record<OAuthErrorCode, string> = {
  invalid_request: 'The request is missing a required parameter or is malformed.',
  invalid_grant: 'The credentials or refresh token are invalid or expired.',
  unsupported_grant_type: 'Only the password and refresh_token grants are supported.',
  slow_down: 'Too many attempts; try again later.',
  server_error: 'The server could not answer the request.',
  temporarily_unavailable: 'The service is temporarily unavailable.',
};

const statuses: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  slow_down: 429,
  server_error: 500,
  temporarily_unavailable: 503,
};

export function sendOAuthError(res: Response, error: OAuthErrorCode): void {
  res
    .status(statuses[error])
    .set('Cache-Control', 'no-store')
    .json({ error, error_description: descriptions[error] });
}

/** The token endpoint's answer to a failed grant. */
export function sendOAuthGraphQLError(res: Response, error: GraphQLError): void {
  switch (error.extensions?.['code']) {
    case 'UNAUTHENTICATED':
      sendOAuthError(res, 'invalid_grant');
      return;
    case 'BAD_USER_INPUT':
      sendOAuthError(res, 'invalid_request');
      return;
    case 'TOO_MANY_REQUESTS':
      res.set('Retry-After', String(error.extensions?.['retryAfter'] ?? 60));
      sendOAuthError(res, 'slow_down');
      return;
    case 'SERVICE_UNAVAILABLE':
      sendOAuthError(res, 'temporarily_unavailable');
      return;
    default:
      sendOAuthError(res, 'server_error');
  }
}
