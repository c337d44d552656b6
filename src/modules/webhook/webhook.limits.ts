/** The bounds of webhooks, each declared once (webhook.settings.ts takes its defaults from here). */
export const WEBHOOK_LIMITS = {
  /** Endpoints one user may have. */
  endpointsPerUser: 10,
  url: { max: 2048 },
  /** One attempt, from connecting to the answer's last byte read. */
  timeoutMs: 10_000,
  /** Of an answer's body, at most this much is read. */
  responseBytes: 64 * 1024,
  /** Seconds between an event's failed attempts (WEBHOOK_RETRY_SCHEDULE overrides them). */
  retrySchedule: [5, 300, 1800, 7200, 18_000, 36_000, 36_000],
  /** The longest schedule WEBHOOK_RETRY_SCHEDULE may give, and its longest wait (a week). */
  retries: { max: 20, maxSeconds: 7 * 86_400 },
  /** Consecutive events that failed every attempt before an endpoint is disabled. */
  disableAfter: 20,
  /** Hours of failed attempts, with no success between, before an endpoint is disabled. */
  disableAfterHours: { default: 72, max: 8_760 },
  /**
   * Attempts at one endpoint's deliveries under way at once (WEBHOOK_CONCURRENCY_PER_ENDPOINT):
   * its lanes, each running its attempts one at a time (webhook.jobs.ts).
   */
  concurrencyPerEndpoint: { default: 4, max: 16 },
  /**
   * Undelivered deliveries an endpoint may have (WEBHOOK_MAX_BACKLOG): one more, and it is
   * disabled, its deliveries kept for when it is enabled again.
   */
  maxBacklog: { default: 10_000, max: 1_000_000 },
  /** A retry waits its scheduled time give or take this fraction (jitter). */
  jitter: 0.2,
  /** How long a rotated secret still signs beside the new one, so receivers can switch. */
  previousSecretMs: 24 * 3_600_000,
  /** How long deliveries and their attempts are kept once finished. */
  keepDeliveriesMs: 30 * 86_400_000,
  /** An error as an attempt records it, at most. */
  errorLength: 500,
  disabledReasonLength: 255,
} as const;
