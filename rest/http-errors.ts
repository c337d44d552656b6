import type { Response } from 'express';
import type { GraphQLError } from 'graphql';
import { sendError } from '../src/http/http-errors';
import type { FieldErrors } from '../src/shared/errors';
import { clientFieldPath, validationCode } from './names';

const statusByCategory: Record<string, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  BAD_USER_INPUT: 422,
  TOO_MANY_REQUESTS: 429,
  SERVICE_UNAVAILABLE: 503,
};

/** 401 with the RFC 6750 challenge that tells a missing token from a bad one. */
export function sendUnauthenticated(res: Response, reason: string): void {
  res.set(
    'WWW-Authenticate',
    reason === 'INVALID_TOKEN' ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"',
  );
  sendError(res, 401, reason);
}

/** 422 with one `VALIDATION_<FIELD>_<REASON>` entry per bad field, keyed as the client sent it. */
export function sendValidationErrors(
  res: Response,
  fields: Readonly<Record<string, string>>,
): void {
  const errors: Record<string, string> = {};
  for (const [field, reason] of Object.entries(fields)) {
    errors[field] = validationCode(field, reason);
  }
  res.status(422).json({ errors });
}

/** The HTTP status and contract body for the first error of a GraphQL result: one place. */
export function sendGraphQLError(
  res: Response,
  error: GraphQLError,
  renames: Readonly<Record<string, string>> = {},
): void {
  const category = String(error.extensions?.['code'] ?? 'INTERNAL_SERVER_ERROR');
  const reason = String(error.extensions?.['reason'] ?? 'INTERNAL_ERROR');
  const status = statusByCategory[category];
  if (status === 401) {
    sendUnauthenticated(res, reason);
    return;
  }
  if (status === 422) {
    const fields = (error.extensions?.['fields'] ?? {}) as FieldErrors;
    const byClientName: Record<string, string> = {};
    for (const [path, fieldReason] of Object.entries(fields)) {
      byClientName[clientFieldPath(path.split('.'), renames)] = fieldReason;
    }
    sendValidationErrors(res, byClientName);
    return;
  }
  if (status === 429) {
    res.set('Retry-After', String(error.extensions?.['retryAfter'] ?? 60));
  }
  if (status) {
    sendError(res, status, reason);
    return;
  }
  sendError(res, 500, 'INTERNAL_ERROR');
}
