import { z } from 'zod';
import { WEBHOOK_LIMITS } from './webhook.limits';

// The webhook settings' own validation, read by src/config.ts. A leaf file (zod and the limits
// only): the configuration is read before tracing starts, when nothing else may load yet.

const SECONDS_LIST = /^\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*$/;
const { retries } = WEBHOOK_LIMITS;

/** WEBHOOK_RETRY_SCHEDULE: seconds before each retry; empty or unset, the default. */
export const retrySchedule = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(
    z
      .string()
      .regex(SECONDS_LIST, 'must be seconds separated by commas, e.g. 5,300,1800')
      .transform((v) => v.split(',').map(Number))
      .refine((list) => list.length <= retries.max, `at most ${retries.max} retries`)
      .refine(
        (list) => list.every((seconds) => seconds <= retries.maxSeconds),
        `each wait at most ${retries.maxSeconds} seconds (a week)`,
      )
      .optional(),
  )
  .optional();

/** WEBHOOK_SECRET_KEY: 32 bytes, base64. */
export const secretKey = z
  .string()
  .trim()
  .refine(
    (v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32,
    'must be 32 random bytes in base64, e.g. the output of `openssl rand -base64 32`',
  );
