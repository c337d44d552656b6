import { z } from 'zod';
import { defineSettings } from '../settings/settings';

// Subscriptions and the change log they resume from. A leaf file, as the other settings.

/**
 * Bounds on GraphQL subscriptions: subscriptions one socket may carry, sockets and event streams
 * one user may hold open on one instance, and events held for a subscriber that does not keep up
 * (one more closes its connection).
 */
export interface SubscriptionLimits {
  perSocket: number;
  socketsPerUser: number;
  queueSize: number;
}

/** Live updates ([subscriptions](api.md#live-updates-graphql-subscriptions)). */
export const liveSettings = defineSettings({
  area: 'Live updates',
  about: 'The API guide explains [subscriptions](api.md#live-updates-graphql-subscriptions).',
  variables: {
    SUBSCRIPTIONS_PER_SOCKET: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(20)
      .meta({ description: 'subscriptions one socket may carry at a time (1–1000)' }),
    SOCKETS_PER_USER: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(10)
      .meta({ description: 'sockets and event streams of one user on one instance (1–1000)' }),
    SUBSCRIPTION_QUEUE_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(100)
      .meta({ description: 'events held for a slow subscriber before its socket is closed' }),
    CHANGE_LOG_RETENTION_HOURS: z.coerce
      .number()
      .positive()
      .max(24 * 366)
      .default(7 * 24)
      .meta({
        description:
          'how long the change log keeps a change: a cursor up to that old resumes, an older ' +
          'one is refused as `CURSOR_EXPIRED`',
      }),
  },
  configOf: (env): { subscriptions: SubscriptionLimits; changeLogRetentionMs: number } => ({
    subscriptions: {
      perSocket: env.SUBSCRIPTIONS_PER_SOCKET,
      socketsPerUser: env.SOCKETS_PER_USER,
      queueSize: env.SUBSCRIPTION_QUEUE_SIZE,
    },
    /**
     * How long the change log keeps a change (CHANGE_LOG_RETENTION_HOURS, default 7 days): a
     * client resumes from a cursor up to that old; an older one is refused as CURSOR_EXPIRED.
     */
    changeLogRetentionMs: Math.round(env.CHANGE_LOG_RETENTION_HOURS * 3_600_000),
  }),
});
