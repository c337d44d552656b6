import { z } from 'zod';
import { defineSettings } from '../../platform/settings/settings';
import { flag, secondsList, wholeNumber } from '../../platform/settings/values';
import { WEBHOOK_LIMITS } from './webhook.limits';

// The webhook settings. A leaf file (zod, the settings' own files and the limits): the
// configuration is read before tracing starts, when nothing else may load yet.

/** WEBHOOK_SECRET_KEY: 32 bytes, base64. */
const secretKey = z
  .string()
  .trim()
  .refine(
    (v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32,
    'must be 32 random bytes in base64, e.g. the output of `openssl rand -base64 32`',
  );

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

/** Webhooks' retries, when an endpoint is disabled, its lanes, its targets, the sealing key. */
export const webhookSettings = defineSettings({
  area: 'Webhooks',
  about: '[docs/webhooks.md](webhooks.md) explains delivery, retries, backlogs and safety.',
  variables: {
    WEBHOOK_RETRY_SCHEDULE: secondsList(WEBHOOK_LIMITS.retries).meta({
      defaultText: `\`${WEBHOOK_LIMITS.retrySchedule.join(',')}\``,
      description:
        `seconds before each retry of a failed webhook event (1 to ${WEBHOOK_LIMITS.retries.max} ` +
        'waits; [retries](webhooks.md#delivery))',
    }),
    WEBHOOK_DISABLE_AFTER: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(WEBHOOK_LIMITS.disableAfter)
      .meta({
        description: 'webhook events in a row that failed every attempt before it is disabled',
      }),
    WEBHOOK_DISABLE_AFTER_HOURS: wholeNumber(WEBHOOK_LIMITS.disableAfterHours).meta({
      description: 'hours of failed attempts, no success between, before an endpoint is disabled',
    }),
    WEBHOOK_CONCURRENCY_PER_ENDPOINT: wholeNumber(WEBHOOK_LIMITS.concurrencyPerEndpoint).meta({
      description:
        `attempts of one endpoint under way at once, 1 to ` +
        `${WEBHOOK_LIMITS.concurrencyPerEndpoint.max} (its lanes; 1: in commit order)`,
    }),
    WEBHOOK_MAX_BACKLOG: wholeNumber(WEBHOOK_LIMITS.maxBacklog).meta({
      description:
        'undelivered deliveries past which an endpoint is disabled, its deliveries kept ' +
        '([backlog](webhooks.md#backlog))',
    }),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag()
      .default(false)
      .meta({ description: 'webhooks may call private, loopback and link-local addresses' }),
    WEBHOOK_SECRET_KEY: secretKey.optional().meta({
      defaultText: 'derived from the JWT key material',
      description: 'key (32 bytes, base64) that seals webhook signing secrets and kept answers',
    }),
  },
  configOf: (env): { webhooks: WebhookConfig } => ({
    webhooks: {
      retrySchedule: env.WEBHOOK_RETRY_SCHEDULE ?? WEBHOOK_LIMITS.retrySchedule,
      disableAfter: env.WEBHOOK_DISABLE_AFTER,
      disableAfterHours: env.WEBHOOK_DISABLE_AFTER_HOURS,
      concurrencyPerEndpoint: env.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
      maxBacklog: env.WEBHOOK_MAX_BACKLOG,
      allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      secretKey: env.WEBHOOK_SECRET_KEY ?? null,
    },
  }),
});
