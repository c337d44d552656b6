import type { Logger } from 'pino';
import { causeOf } from './log-safety';
import { currentRequest } from './request-tracking';

/**
 * The one log line of a request answered 503 because the database was unavailable or its
 * deadline passed: its cause, without a stack, once per request (a GraphQL answer may carry
 * several such errors). Written by the REST and the GraphQL faces alike.
 */
export function logUnavailable(logger: Logger | undefined, error: unknown): void {
  const scope = currentRequest();
  if (!logger || scope?.unavailableLogged) {
    return;
  }
  if (scope) {
    scope.unavailableLogged = true;
  }
  logger.warn({ cause: causeOf(error) }, 'database unavailable');
}
