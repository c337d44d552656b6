import { z } from 'zod';
import { secondsList } from '../../platform/shared/seconds-list';
import { WEBHOOK_LIMITS } from './webhook.limits';

// The webhook settings' own validation, read by src/config.ts. A leaf file (zod and the limits
// only): the configuration is read before tracing starts, when nothing else may load yet.

/** WEBHOOK_RETRY_SCHEDULE: seconds before each retry; empty or unset, the default. */
export const retrySchedule = secondsList(WEBHOOK_LIMITS.retries);

/** A whole number from 1 to the bound's `max`; unset, its `default`. */
const bounded = (bound: { default: number; max: number }) =>
  z.coerce.number().int().min(1).max(bound.max).default(bound.default);

/** WEBHOOK_DISABLE_AFTER_HOURS. */
export const disableAfterHours = bounded(WEBHOOK_LIMITS.disableAfterHours);

/** WEBHOOK_CONCURRENCY_PER_ENDPOINT: an endpoint's lanes. */
export const concurrencyPerEndpoint = bounded(WEBHOOK_LIMITS.concurrencyPerEndpoint);

/** WEBHOOK_MAX_BACKLOG: undelivered deliveries past which an endpoint is disabled. */
export const maxBacklog = bounded(WEBHOOK_LIMITS.maxBacklog);

/** WEBHOOK_SECRET_KEY: 32 bytes, base64. */
export const secretKey = z
  .string()
  .trim()
  .refine(
    (v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32,
    'must be 32 random bytes in base64, e.g. the output of `openssl rand -base64 32`',
  );

/** The webhook settings (docs/webhooks.md), but WEBHOOK_ALLOW_PRIVATE_NETWORKS, a plain flag. */
export const WEBHOOK_ENV = {
  WEBHOOK_RETRY_SCHEDULE: retrySchedule,
  WEBHOOK_DISABLE_AFTER: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(WEBHOOK_LIMITS.disableAfter),
  WEBHOOK_DISABLE_AFTER_HOURS: disableAfterHours,
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: concurrencyPerEndpoint,
  WEBHOOK_MAX_BACKLOG: maxBacklog,
  WEBHOOK_SECRET_KEY: secretKey.optional(),
};

type WebhookEnv = z.infer<z.ZodObject<typeof WEBHOOK_ENV>> & {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean;
};

/**
 * Webhooks: the waits (seconds) before each retry of a failed event, the failed events in a row
 * (and the hours of failed attempts) that disable an endpoint, the attempts of one endpoint under
 * way at once, the undelivered deliveries that disable it, whether private, loopback and
 * link-local targets are allowed, and the key their signing secrets are sealed with (null:
 * derived from the JWT key material).
 */
export interface WebhookConfig {
  retrySchedule: readonly number[];
  disableAfter: number;
  disableAfterHours: number;
  concurrencyPerEndpoint: number;
  maxBacklog: number;
  allowPrivateNetworks: boolean;
  secretKey: string | null;
}

export const webhookConfigOf = (env: WebhookEnv): WebhookConfig => ({
  retrySchedule: env.WEBHOOK_RETRY_SCHEDULE ?? WEBHOOK_LIMITS.retrySchedule,
  disableAfter: env.WEBHOOK_DISABLE_AFTER,
  disableAfterHours: env.WEBHOOK_DISABLE_AFTER_HOURS,
  concurrencyPerEndpoint: env.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
  maxBacklog: env.WEBHOOK_MAX_BACKLOG,
  allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
  secretKey: env.WEBHOOK_SECRET_KEY ?? null,
});
