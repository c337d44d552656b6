import { z } from 'zod';

// The kinds of value variables take, shared by every area's settings. A leaf file (zod only), as
// settings.ts.

/** A URL, or nothing when unset or blank. */
export const optionalUrl = () =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.url().optional())
    .optional();

/**
 * A whole number within a limit's bounds (`min`, default 1, to `max`); unset, its `default`.
 * For a variable whose bounds a limits object states (the column, the validators and the
 * reference read the same numbers).
 */
export const wholeNumber = (bounds: { min?: number; max: number; default: number }) =>
  z.coerce
    .number()
    .int()
    .min(bounds.min ?? 1)
    .max(bounds.max)
    .default(bounds.default);

/** A yes or no: `true`, `1`, `yes` or `false`, `0`, `no`. */
export const flag = () =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Entries separated by commas (spaces around them ignored; empty: none). */
export const commaList = (defaultValue = '') =>
  z
    .string()
    .default(defaultValue)
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    );

const SECONDS_LIST = /^\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*$/;

/**
 * Waits in seconds, separated by commas (a retry schedule); empty or unset, undefined (the
 * caller's default). At most `max` waits, each at most `maxSeconds`.
 */
export const secondsList = (bounds: { max: number; maxSeconds: number }) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .regex(SECONDS_LIST, 'must be seconds separated by commas, e.g. 5,300,1800')
        .transform((v) => v.split(',').map(Number))
        .refine((list) => list.length <= bounds.max, `at most ${bounds.max} retries`)
        .refine(
          (list) => list.every((seconds) => seconds <= bounds.maxSeconds),
          `each wait at most ${bounds.maxSeconds} seconds (a week)`,
        )
        .optional(),
    )
    .optional();
