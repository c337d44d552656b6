/** The bounds of mail, each declared once (the settings take their defaults from here). */
export const MAIL_LIMITS = {
  /** Seconds between a message's failed attempts (MAIL_RETRY_SCHEDULE overrides them). */
  retrySchedule: [60, 300, 1800, 7200],
  /** The longest schedule MAIL_RETRY_SCHEDULE may give, and its longest wait (a week). */
  retries: { max: 20, maxSeconds: 7 * 86_400 },
  /** Invitation messages one user's actions may cause in an hour (MAIL_PER_SENDER_PER_HOUR). */
  perSenderPerHour: 200,
  /** A retry waits its scheduled time give or take this fraction (jitter). */
  jitter: 0.2,
  /** One SMTP attempt, from connecting to the server's last answer. */
  timeoutMs: 30_000,
  /** An error as a message records it, at most. */
  errorLength: 500,
  /** How long a verification link stays good. */
  verificationTtlMs: 7 * 86_400_000,
  /** How long a message's unsubscribe link stays good. */
  unsubscribeTtlMs: 365 * 86_400_000,
  /** Messages the development mail page lists. */
  devPageSize: 100,
} as const;
