import type { LinkTokens } from '../../platform/auth/link-tokens';
import type { UserRecord } from '../user';
import { MAIL_LIMITS } from './mail.limits';

/** Where the pages of links sent by mail live, below PUBLIC_URL. */
export const MAIL_PATHS = {
  verifyEmail: '/verify-email',
  devMail: '/dev/mail',
  rsvp: '/rsvp',
  inbound: '/mail/inbound',
  unsubscribe: '/mail/unsubscribe',
} as const;

/** What a verification token is for (its signature is worthless for anything else). */
export const VERIFY_PURPOSE = 'verify-email';

/** The verification link of a user's present address, good for MAIL_LIMITS.verificationTtlMs. */
export function verificationLink(links: LinkTokens, publicUrl: string, user: UserRecord): string {
  const exp = Math.floor((Date.now() + MAIL_LIMITS.verificationTtlMs) / 1000);
  const token = links.sign(VERIFY_PURPOSE, { u: user.id, e: user.email, exp });
  return `${publicUrl}${MAIL_PATHS.verifyEmail}?token=${encodeURIComponent(token)}`;
}
