import type { LinkTokens } from '../../platform/auth/link-tokens';
import { isMailTopic, type MailTopic } from '../user';
import { MailKind } from './mail-message.entity';
import { MAIL_PATHS } from './mail.links';
import { MAIL_LIMITS } from './mail.limits';

/** What an unsubscribe token is for (its signature is worthless for anything else). */
export const UNSUBSCRIBE_PURPOSE = 'unsubscribe';

/** The preference each kind of message answers to; verification answers to none. */
const TOPIC_OF: Readonly<Record<MailKind, MailTopic | null>> = {
  [MailKind.VERIFICATION]: null,
  [MailKind.INVITATION]: 'invitations',
  [MailKind.UPDATE]: 'updates',
  [MailKind.CANCELLATION]: 'updates',
  [MailKind.ANSWER]: 'answers',
  [MailKind.JOIN_REQUEST]: 'answers',
  [MailKind.REMINDER]: 'reminders',
};

/** The preference a kind of message answers to, or null. */
export const topicOf = (kind: MailKind): MailTopic | null => TOPIC_OF[kind];

/** Whether `user` wants messages of `kind` (always, for a kind no preference covers). */
export function wants(user: { mailMuted: readonly string[] }, kind: MailKind): boolean {
  const topic = topicOf(kind);
  return topic === null || !user.mailMuted.includes(topic);
}

/** The user and the kind of mail an unsubscribe token names. */
export interface UnsubscribeClaims {
  userId: string;
  topic: MailTopic;
}

/** The one-click unsubscribe link (RFC 8058) of `topic` for `user`. */
export function unsubscribeLink(
  links: LinkTokens,
  publicUrl: string,
  user: { id: string },
  topic: MailTopic,
): string {
  const exp = Math.floor((Date.now() + MAIL_LIMITS.unsubscribeTtlMs) / 1000);
  const token = links.sign(UNSUBSCRIBE_PURPOSE, { u: user.id, k: topic, exp });
  return `${publicUrl}${MAIL_PATHS.unsubscribe}?token=${encodeURIComponent(token)}`;
}

/** The claims of a token read back, or null when they are not an unsubscribe token's. */
export function unsubscribeClaimsOf(claims: Record<string, unknown>): UnsubscribeClaims | null {
  const { u, k } = claims;
  return typeof u === 'string' && isMailTopic(k) ? { userId: u, topic: k } : null;
}
