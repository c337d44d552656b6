/** Milliseconds in common spans of time. */
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A timestamp (ms since the epoch) as the ISO string bound to a timestamptz parameter. */
export const iso = (ms: number): string => new Date(Math.round(ms)).toISOString();

/** Milliseconds since the epoch of a timestamp column read back from the database. */
export function toMillis(value: unknown): number {
  if (value instanceof Date) {
    return value.getTime();
  }
  const parsed = Date.parse(String(value));
  if (Number.isNaN(parsed)) {
    throw new TypeError(`not a timestamp: ${String(value)}`);
  }
  return parsed;
}
