import { ConnectionException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { type AppError, DatabaseUnavailableError } from './errors';

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

/** A row refused by an exclusion constraint (SQLSTATE 23P01), as PostgreSQL reports it. */
export interface ExclusionViolation {
  constraint: string;
  /** The key values of the refused row and of the row it conflicts with, as printed. */
  key: string;
  existing: string;
}

const EXCLUSION_DETAIL =
  /^Key \((?:.*?)\)=\((.*)\) conflicts with existing key \((?:.*?)\)=\((.*)\)\.?$/s;

/** The exclusion violation an error is, or null (another error, or a detail not as expected). */
function exclusionViolationOf(error: unknown): ExclusionViolation | null {
  const { code, detail } = error as { code?: unknown; detail?: unknown };
  const constraint = constraintOf(error);
  const match = typeof detail === 'string' ? EXCLUSION_DETAIL.exec(detail) : null;
  return code === '23P01' && constraint && match
    ? { constraint, key: match[1] as string, existing: match[2] as string }
    : null;
}

/**
 * Runs a write and turns a violation of one of the named exclusion constraints into the coded
 * error made for it (which may read what the violation names), so a write that lost a race to
 * an overlapping one fails as one made after it would.
 */
export async function onExclusionViolation<T>(
  write: () => Promise<T>,
  errors: Record<string, (violation: ExclusionViolation) => Promise<AppError>>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const violation = exclusionViolationOf(error);
    const mapped = violation ? errors[violation.constraint] : undefined;
    if (violation && mapped) {
      throw await mapped(violation);
    }
    throw error;
  }
}

/**
 * A request's wait for the database that its deadline ended (src/platform/postgres/request-deadline.ts): for a
 * pooled connection, or a statement (which is cancelled on the server). `during` says which.
 */
export class DeadlineExceededError extends Error {
  constructor(readonly during: 'a pooled connection' | 'a statement') {
    super(`request deadline reached waiting for ${during}`);
    this.name = 'DeadlineExceededError';
  }
}

// Connection and resource classes (08P01, a protocol violation, is caused by the request
// itself); 57014: a statement cancelled by statement_timeout; 55P03: lock_timeout.
const unavailableStates = /^(08(?!P01)|53|57P|57014$|55P03$)/;
const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
// Driver messages without a code: pg's "not queryable" is what a client whose connection broke
// answers every later statement (the next statement of a transaction whose connection was lost
// under it, too); pg-pool's "timeout exceeded" a wait in its queue past connectionTimeoutMillis.
const lostMessages =
  /Connection terminated|connect ECONNREFUSED|is not queryable|timeout exceeded when trying to connect/;

/**
 * True when the error says the database cannot be reached or is shutting down (or starting up).
 * Looks through an `Error#cause` too (a driver error wrapped by the ORM or the pool).
 */
function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (error instanceof ConnectionException || error instanceof DeadlineExceededError) {
    return true;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (unavailableCodes.has(code) || unavailableStates.test(code))) {
    return true;
  }
  if (error instanceof Error && lostMessages.test(error.message)) {
    return true;
  }
  const cause = (error as { cause?: unknown } | null)?.cause;
  return depth < 4 && cause != null && cause !== error && isDatabaseUnavailable(cause, depth + 1);
}

/**
 * The one classification of a driver or pool error, where it enters (src/db): a lost, closing or
 * overloaded database becomes a `DatabaseUnavailableError`; anything else is returned as it is.
 */
export function classifyDatabaseError(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError || !isDatabaseUnavailable(error)) {
    return error;
  }
  return new DatabaseUnavailableError(error);
}
