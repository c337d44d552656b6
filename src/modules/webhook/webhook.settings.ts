import { z } from 'zod';
import { secondsList } from '../../platform/shared/seconds-list';
import { WEBHOOK_LIMITS } from './webhook.limits';

// The webhook settings' own validation, read by src/config.ts. A leaf file (zod and the limits
// only): the configuration is read before tracing starts, when nothing else may load yet.

/** WEBHOOK_RETRY_SCHEDULE: seconds before each retry; empty or unset, the default. */
export const retrySchedule = secondsList(WEBHOOK_LIMITS.retries);

/** WEBHOOK_SECRET_KEY: 32 bytes, base64. */
export const secretKey = z
  .string()
  .trim()
  .refine(
    (v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32,
    'must be 32 random bytes in base64, e.g. the output of `openssl rand -base64 32`',
  );
