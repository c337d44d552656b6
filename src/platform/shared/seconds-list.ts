import { z } from 'zod';

// A leaf file (zod only): the configuration is read before tracing starts, when nothing else may
// load yet.

const SECONDS_LIST = /^\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*$/;

/**
 * A setting that lists waits in seconds, separated by commas (a retry schedule); empty or unset,
 * undefined (the caller's default). At most `max` waits, each at most `maxSeconds`.
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
