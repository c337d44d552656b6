import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import type { Logger } from 'pino';
import { currentRequest } from '../observability/request-tracking';
import { logUnavailable } from '../observability/unavailable-log';
import { AppError, DatabaseUnavailableError } from '../shared/errors';

/** Apollo's own request-level codes that are safe to show as they are. */
const CLIENT_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  // Ours (DocumentNotAllowedError): a document outside the enforced trusted documents.
  'PERSISTED_QUERY_NOT_ALLOWED',
]);

/** Whether a JavaScript error (not a GraphQL one) lies anywhere behind this error. */
function hasPlainErrorCause(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (!(current instanceof GraphQLError)) {
      return true;
    }
    current = current.originalError;
  }
  return false;
}

/**
 * Shapes every GraphQL error: coded errors pass as they are, a lost database (typed where driver
 * errors enter) is 503-coded, anything unexpected is logged and masked (no stack, SQL or driver
 * message leaves).
 */
export function formatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    // Server failures carry the request id, which ties a user's report to the logs.
    const requestId = currentRequest()?.id;
    if (original instanceof DatabaseUnavailableError) {
      logUnavailable(logger, original);
      return {
        message: 'The service is temporarily unavailable',
        path: formatted.path,
        extensions: { code: 'SERVICE_UNAVAILABLE', reason: 'SERVICE_UNAVAILABLE', requestId },
      };
    }
    if (original instanceof AppError) {
      // `http` (the response status) is Apollo's, not the client's.
      const extensions = { ...original.extensions };
      delete extensions['http'];
      return {
        message: original.message,
        path: formatted.path,
        locations: formatted.locations,
        extensions,
      };
    }
    const code = formatted.extensions?.['code'];
    if (typeof code === 'string' && CLIENT_CODES.has(code)) {
      // A JavaScript failure behind a client code (e.g. a stack overflow on a huge document)
      // is still the client's fault, but its message is not for them.
      const leaked = hasPlainErrorCause(error);
      return {
        message: leaked ? 'The request could not be processed' : formatted.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code },
      };
    }
    // graphql-js's own execution errors (an argument that cannot be coerced) are client errors.
    if (
      original instanceof GraphQLError &&
      !original.originalError &&
      // Request-level errors (no path) and argument coercion are the client's; a value the
      // server could not serialise (a path, another message) stays an internal error.
      (!original.path || /^(Argument|Variable) "/.test(original.message))
    ) {
      return {
        message: formatted.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: 'BAD_USER_INPUT' },
      };
    }
    logger.error({ err: original }, 'unexpected GraphQL error');
    return {
      message: 'Internal server error',
      path: formatted.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR', reason: 'INTERNAL_ERROR', requestId },
    };
  };
}
