import type { LinkTokens } from '../../platform/auth/link-tokens';
import { type MeetingRecord, Series } from '../meeting';
import type { UserRecord } from '../user';
import { MAIL_PATHS } from './mail.links';

/** What an RSVP token is for (its signature is worthless for anything else). */
export const RSVP_PURPOSE = 'rsvp';

/** The answers a link gives. */
export const RSVP_ANSWERS = ['accept', 'decline'] as const;
export type RsvpAnswer = (typeof RSVP_ANSWERS)[number];

/** How long the token of a series without end stays good (each update sends a new one). */
const ENDLESS_MS = 365 * 86_400_000;

/** Until when a participant's links (RSVP, reply address) answer: the meeting's (series') end. */
export const answerableUntil = (meeting: MeetingRecord): Date =>
  new Series(meeting).endsAt() ?? new Date(Date.now() + ENDLESS_MS);

/** The participant an RSVP token names: the meeting and the user. */
export interface RsvpClaims {
  meetingId: string;
  userId: string;
}

/**
 * The Accept and Decline links of an invitation to `reader`: one token naming the participant,
 * good until the meeting (the series) ends.
 */
export function rsvpLinks(
  links: LinkTokens,
  publicUrl: string,
  meeting: MeetingRecord,
  reader: UserRecord,
): Record<RsvpAnswer, string> {
  const token = links.sign(RSVP_PURPOSE, {
    m: meeting.id,
    u: reader.id,
    exp: Math.floor(answerableUntil(meeting).getTime() / 1000),
  });
  const base = `${publicUrl}${MAIL_PATHS.rsvp}/${token}`;
  return { accept: `${base}?answer=accept`, decline: `${base}?answer=decline` };
}

/** The claims of a token read back, or null when they are not an RSVP's. */
export function rsvpClaimsOf(claims: Record<string, unknown>): RsvpClaims | null {
  const { m, u } = claims;
  return typeof m === 'string' && typeof u === 'string' ? { meetingId: m, userId: u } : null;
}
