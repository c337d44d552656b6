import { randomUUID } from 'node:crypto';

/** One message as the service writes it: always its own text, never a user's markup. */
export interface Letter {
  to: { name: string; address: string };
  subject: string;
  text: string;
  /** Markup built from escaped text only (see mail.text.ts). */
  html: string;
  /** An iTIP message: the `text/calendar; method=…` part and the `invite.ics` attachment. */
  calendar?: { method: string; content: string };
  /** The one-click unsubscribe address (RFC 8058), on every message but verification. */
  unsubscribe?: string;
  /** Where replies go (the per-invitation reply address), when not the sender. */
  replyTo?: string;
}

/**
 * One line of header text: line breaks and other control characters become spaces, so no name
 * or title can start a header of its own (nodemailer encodes the rest).
 */
export const oneLine = (text: string): string =>
  // eslint-disable-next-line no-control-regex
  text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();

/** A new Message-ID (without angle brackets) in the sender's domain. */
export function newMessageId(from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  return `${randomUUID()}@${domain}`;
}

/**
 * The whole message (RFC 5322), composed once: multipart/alternative of text, HTML and, for
 * iTIP, the calendar with its method; the calendar again as `invite.ics`. Its bytes are kept and
 * sent as they are on every attempt, so the Message-ID never changes. nodemailer's composer is
 * loaded on the first message (see mail.parse.ts: an instance that sends none never holds it).
 */
export async function compose(from: string, letter: Letter, messageId: string): Promise<string> {
  const { default: MailComposer } = await import('nodemailer/lib/mail-composer');
  const composer = new MailComposer({
    from,
    to: { name: oneLine(letter.to.name), address: letter.to.address },
    subject: oneLine(letter.subject),
    text: letter.text,
    html: letter.html,
    messageId: `<${messageId}>`,
    date: new Date(),
    ...(letter.replyTo && { replyTo: letter.replyTo }),
    ...(letter.calendar && {
      icalEvent: {
        method: letter.calendar.method,
        filename: 'invite.ics',
        content: letter.calendar.content,
      },
    }),
    ...(letter.unsubscribe && {
      headers: {
        'List-Unsubscribe': `<${letter.unsubscribe}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    }),
  });
  const built = await composer.compile().build();
  return built.toString('utf8');
}
