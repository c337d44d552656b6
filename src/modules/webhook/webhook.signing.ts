import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** How the service introduces itself to receivers. */
const USER_AGENT = 'meeting-coordination-webhooks/1';

/** A new signing secret, as Standard Webhooks writes them: `whsec_` and 32 random bytes, base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The headers of one attempt (Standard Webhooks): `webhook-id` (the same on every attempt),
 * `webhook-timestamp` (this attempt's, in seconds) and `webhook-signature`: `v1,<base64 of
 * HMAC-SHA256 of "id.timestamp.body">`, one per secret, space-separated (during a rotation the
 * previous secret signs too, so receivers verify with either).
 */
export function signedHeaders(
  id: string,
  sentAt: Date,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': secrets
      .map((secret) => new Webhook(secret).sign(id, sentAt, body))
      .join(' '),
  };
}
