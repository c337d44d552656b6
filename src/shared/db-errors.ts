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

const unavailableStates = /^(08|53|57P)/;
const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);

/** True when the error says the database cannot be reached or is shutting down. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof ConnectionException) {
    return true;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (unavailableCodes.has(code) || unavailableStates.test(code))) {
    return true;
  }
  if (error instanceof DriverException || error instanceof Error) {
    const message = error.message;
    return /Connection terminated|Timeout acquiring a connection|connect ECONNREFUSED/.test(
      message,
    );
  }
  return false;
}

export const databaseUnavailable = (): AppError => new ServiceUnavailableError();
