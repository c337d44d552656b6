import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import {
  AppError,
  DatabaseUnavailableError,
  type ErrorCategory,
  IdempotencyKeyError,
  NotFoundError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationFailedError,
} from '../shared/errors';
import { logUnavailable } from '../observability/unavailable-log';
import { sendJson } from './json-answer';

/** How failures are answered: the contract's bodies, or RFC 6749 §5.2 (the token endpoint). */
export type ErrorStyle = 'contract' | 'oauth';

/** RFC 6749 §5.2 error codes used by the token endpoint. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'slow_down'
  | 'server_error'
  | 'temporarily_unavailable';

/** A failure of the HTTP request itself (unreadable body, unknown grant), coded in both styles. */
export class HttpRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly oauthCode: OAuthErrorCode = 'invalid_request',
  ) {
    super(code);
  }
}

/** What a failure is answered with, and whether it is worth a log line. */
export interface HttpFailure {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: unknown;
  log: 'warn' | 'error' | null;
}

const statusByCategory: Record<ErrorCategory, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  BAD_USER_INPUT: 422,
  TOO_MANY_REQUESTS: 429,
  QUERY_TOO_LARGE: 400,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_SERVER_ERROR: 500,
};

const oauthDescriptions: Record<OAuthErrorCode, string> = {
  invalid_request: 'The request is missing a required parameter or is malformed.',
  invalid_grant: 'The credentials or refresh token are invalid or expired.',
  unsupported_grant_type: 'Only the password and refresh_token grants are supported.',
  slow_down: 'Too many attempts; try again later.',
  server_error: 'The server could not answer the request.',
  temporarily_unavailable: 'The service is temporarily unavailable.',
};

const oauthStatuses: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  slow_down: 429,
  server_error: 500,
  temporarily_unavailable: 503,
};

const oauthByCategory: Partial<Record<ErrorCategory, OAuthErrorCode>> = {
  UNAUTHENTICATED: 'invalid_grant',
  BAD_USER_INPUT: 'invalid_request',
  TOO_MANY_REQUESTS: 'slow_down',
  SERVICE_UNAVAILABLE: 'temporarily_unavailable',
};

/** Express's body parsers' failures (`error.type`) → the contract's status and code. */
const bodyParserErrors: Record<string, [number, string]> = {
  'entity.parse.failed': [400, 'MALFORMED_BODY'],
  'entity.verify.failed': [400, 'MALFORMED_BODY'],
  'request.aborted': [400, 'MALFORMED_BODY'],
  'request.size.invalid': [400, 'MALFORMED_BODY'],
  'entity.too.large': [413, 'PAYLOAD_TOO_LARGE'],
  'parameters.too.many': [413, 'PAYLOAD_TOO_LARGE'],
  'encoding.unsupported': [415, 'UNSUPPORTED_MEDIA_TYPE'],
  'charset.unsupported': [415, 'UNSUPPORTED_MEDIA_TYPE'],
};

/** The contract's code for one bad field: `VALIDATION_<FIRST SEGMENT>_<REASON>`. */
export const validationCode = (clientPath: string, reason: string): string =>
  `VALIDATION_${(clientPath.split('.')[0] ?? clientPath).toUpperCase()}_${reason}`;

/** The typed failure behind an error: an executed operation's error wraps its resolver's. */
function typedFailure(error: unknown): unknown {
  if (error instanceof GraphQLError && !(error instanceof AppError) && error.originalError) {
    return typedFailure(error.originalError);
  }
  const type = (error as { type?: unknown } | null)?.type;
  const parser = typeof type === 'string' ? bodyParserErrors[type] : undefined;
  if (parser) {
    return new HttpRequestError(parser[0], parser[1]);
  }
  // Express's own client errors (e.g. a path that does not decode) keep their 4xx status.
  const status = (error as { status?: unknown } | null)?.status;
  const clientError = typeof status === 'number' && status >= 400 && status < 500;
  if (clientError && !(error instanceof HttpRequestError)) {
    return new HttpRequestError(status, status === 400 ? 'MALFORMED_REQUEST' : 'BAD_REQUEST');
  }
  return error;
}

function contractFailure(failure: unknown): HttpFailure {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers,
    body,
    log: failure instanceof DatabaseUnavailableError ? ('warn' as const) : null,
  });
  if (failure instanceof ValidationFailedError) {
    const errors: Record<string, string> = {};
    for (const [field, reason] of Object.entries(failure.fields)) {
      errors[field] = validationCode(field, reason);
    }
    return answer(422, { errors });
  }
  if (failure instanceof UnauthenticatedError) {
    // RFC 6750: the challenge tells a missing token from a bad one.
    const challenge =
      failure.reason === 'INVALID_TOKEN'
        ? 'Bearer realm="api", error="invalid_token"'
        : 'Bearer realm="api"';
    return answer(401, { errors: failure.reason }, { 'WWW-Authenticate': challenge });
  }
  if (failure instanceof TooManyRequestsError) {
    const retryAfter = String(failure.retryAfterSeconds);
    return answer(429, { errors: failure.reason }, { 'Retry-After': retryAfter });
  }
  if (failure instanceof IdempotencyKeyError) {
    return answer(failure.restStatus, { errors: failure.reason });
  }
  if (failure instanceof ServiceUnavailableError && failure.retryAfterSeconds !== null) {
    // Shed load (a full queue): the client is told when to come back.
    const retryAfter = String(failure.retryAfterSeconds);
    return answer(503, { errors: failure.reason }, { 'Retry-After': retryAfter });
  }
  if (failure instanceof AppError && failure.category !== 'INTERNAL_SERVER_ERROR') {
    return answer(statusByCategory[failure.category], { errors: failure.reason });
  }
  if (failure instanceof HttpRequestError) {
    return answer(failure.status, { errors: failure.code });
  }
  return { status: 500, headers: {}, body: { errors: 'INTERNAL_ERROR' }, log: 'error' };
}

function oauthFailure(failure: unknown): HttpFailure {
  const code =
    failure instanceof HttpRequestError
      ? failure.oauthCode
      : failure instanceof AppError
        ? (oauthByCategory[failure.category] ?? 'server_error')
        : 'server_error';
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (failure instanceof TooManyRequestsError) {
    headers['Retry-After'] = String(failure.retryAfterSeconds);
  }
  const log =
    failure instanceof DatabaseUnavailableError
      ? 'warn'
      : failure instanceof AppError || failure instanceof HttpRequestError
        ? null
        : 'error';
  const body = { error: code, error_description: oauthDescriptions[code] };
  return { status: oauthStatuses[code], headers, body, log };
}

/** The one mapping from a failure (typed, or wrapped by GraphQL or Express) to its HTTP answer. */
export function httpFailure(error: unknown, style: ErrorStyle = 'contract'): HttpFailure {
  const failure = typedFailure(error);
  return style === 'oauth' ? oauthFailure(failure) : contractFailure(failure);
}

/** Answers a failure; a lost database is a warning, anything unexpected an error, in the log. */
export function sendHttpError(
  res: Response,
  error: unknown,
  style: ErrorStyle = 'contract',
  logger?: Logger,
): void {
  const { status, headers, body, log } = httpFailure(error, style);
  if (log === 'warn') {
    logUnavailable(logger, typedFailure(error));
  } else if (log === 'error') {
    logger?.error({ err: error }, 'unexpected error');
  }
  res.set(headers);
  sendJson(res, status, body);
}

/** Unknown routes. */
export const notFound: RequestHandler = (_req, res) =>
  sendHttpError(res, new NotFoundError('NOT_FOUND'));

/** Last handler: whatever no route answered, in the contract's style. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    sendHttpError(res, error, 'contract', logger);
  };
}
