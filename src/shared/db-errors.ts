import {
  ConnectionException,
  DriverException,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import { type AppError, ServiceUnavailableError } from './errors';

/** Name of the constraint a database error is about, when the driver tells it. */
function constraintOf(error: unknown): string | undefined {
  const constraint = (error as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

/**
 * Runs a write and turns a unique violation of one of the named constraints into the coded
 * error given for it, so concurrent duplicates fail like sequential ones.
 */
export async function onUniqueViolation<T>(
  write: () => Promise<T>,
  errors: Record<string, () => AppError>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      const name = constraintOf(error);
      const mapped = name ? errors[name] : undefined;
      if (mapped) {
        throw mapped();
      }
    }
    throw error;
  }
}

// Connection and resource classes (08P01, a protocol violation, is caused by the request
// itself); 57014: a statement cancelled by statement_timeout; 55P03: lock_timeout.
const unavailableStates = /^(08(?!P01)|53|57P|57014$|55P03$)/;
const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
// Driver messages without a code. knex's "Transaction query already complete" is what the next
// statement of a transaction gets once the transaction's connection has been lost under it; pg's
// "not queryable" is what a client whose connection broke answers every later statement.
const lostMessages =
  /Connection terminated|Timeout acquiring a connection|connect ECONNREFUSED|Transaction query already complete|is not queryable|timeout exceeded when trying to connect/;

/**
 * True when the error says the database cannot be reached or is shutting down (or starting up).
 * Looks through wrappers too: a GraphQL error's `originalError` (Apollo wraps a failed context
 * creation in one, message prefixed, driver code hidden) and an `Error#cause`.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailable(error, 0);
}

function unavailable(error: unknown, depth: number): boolean {
  if (error instanceof ConnectionException) {
    return true;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (unavailableCodes.has(code) || unavailableStates.test(code))) {
    return true;
  }
  if (
    (error instanceof DriverException || error instanceof Error) &&
    lostMessages.test(error.message)
  ) {
    return true;
  }
  if (depth < 4 && typeof error === 'object' && error !== null) {
    const { originalError, cause } = error as { originalError?: unknown; cause?: unknown };
    return [originalError, cause].some(
      (inner) => inner != null && inner !== error && unavailable(inner, depth + 1),
    );
  }
  return false;
}

/**
 * Gives an error that means "database unreachable" the HTTP status of a GraphQL response failing
 * with it: Apollo reads `extensions.http` from the error, or from the error a GraphQL error wraps
 * (a failed context creation, a resolver error), and would otherwise answer 500. Other errors are
 * returned untouched. The REST facade and formatError still classify by `isDatabaseUnavailable`.
 */
export function withUnavailableStatus<E>(error: E): E {
  if (error instanceof Error && isDatabaseUnavailable(error)) {
    const carrier = error as Error & { extensions?: Record<string, unknown> };
    carrier.extensions = { ...carrier.extensions, http: { status: 503 } };
  }
  return error;
}

export const databaseUnavailable = (): AppError => new ServiceUnavailableError();
