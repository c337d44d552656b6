import { z } from 'zod';
import { httpSettings } from '../../platform/http/http.settings';
import { defineSettings } from '../../platform/settings/settings';
import { secondsList } from '../../platform/settings/values';
import { MAIL_LIMITS } from './mail.limits';

// The mail settings. A leaf file (zod, the settings' own files and the limits): the configuration
// reads it without loading the module.

const optionalText = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

/** An address `local@domain`: no spaces, no angle brackets, no line breaks. */
const ADDRESS = /^[^\s<>@",;]+@[^\s<>@",;]+$/;
/** `addr`, `Name <addr>` or `"Name" <addr>`: one line, no quotes inside a quoted name. */
const MAILBOX = /^(?:[^\r\n<>"]*|"[^\r\n"]*")\s*<([^\s<>]+)>$|^([^\s<>]+)$/;

/** SMTP_URL: smtp:// or smtps://, credentials in the URL. */
const smtpUrl = optionalText.pipe(
  z
    .string()
    .refine((v) => {
      try {
        return ['smtp:', 'smtps:'].includes(new URL(v).protocol);
      } catch {
        return false;
      }
    }, 'must be an smtp:// or smtps:// URL, e.g. smtp://user:password@smtp.example.com:587')
    .optional(),
);

/** MAIL_FROM: the sender, e.g. `"Meetings" <no-reply@example.com>`. */
const mailFrom = optionalText.pipe(
  z
    .string()
    .refine((v) => {
      const match = MAILBOX.exec(v);
      const address = match?.[1] ?? match?.[2];
      return address !== undefined && ADDRESS.test(address);
    }, 'must be an address, e.g. "Meetings" <no-reply@example.com> or no-reply@example.com')
    .optional(),
);

/** MAIL_REPLY_DOMAIN: a domain name of the reply addresses. */
const domain = optionalText.pipe(
  z
    .string()
    .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i, 'must be a domain name, e.g. reply.example.com')
    .optional(),
);

/**
 * Mail: where it goes (null: kept in the database outside production, off in production), who
 * sends it, the waits (seconds) before each retry, the invitation messages one user may cause in
 * an hour, the secret of the inbound route, and the reply addresses' local part and domain.
 */
export interface MailConfig {
  smtpUrl: string | null;
  from: string;
  retrySchedule: readonly number[];
  perSenderPerHour: number;
  inboundSecret: string | null;
  reply: { local: string; domain: string } | null;
}

/** Mail: where it goes, who sends it, its retries, and the addresses answers come back to. */
export const mailSettings = defineSettings({
  area: 'Mail',
  about: '[docs/mail.md](mail.md) explains what is sent, and how.',
  reads: [httpSettings],
  variables: {
    SMTP_URL: smtpUrl.meta({
      description:
        '`smtp://user:password@host:587` (STARTTLS when offered) or `smtps://…:465`; unset: ' +
        'mail kept in the database outside production ([the development mail page]' +
        '(mail.md#the-development-mail-page)), off in production',
    }),
    MAIL_FROM: mailFrom.meta({
      defaultText: '`"Meetings" <no-reply@<PUBLIC_URL host>>`',
      description: 'the sender of every message',
    }),
    MAIL_RETRY_SCHEDULE: secondsList(MAIL_LIMITS.retries).meta({
      defaultText: `\`${MAIL_LIMITS.retrySchedule.join(',')}\``,
      description:
        'seconds before each retry of a message the server did not take ' +
        `(1 to ${MAIL_LIMITS.retries.max} waits)`,
    }),
    MAIL_PER_SENDER_PER_HOUR: z.coerce
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .default(MAIL_LIMITS.perSenderPerHour)
      .meta({ description: "invitation messages one user's meetings may cause in an hour" }),
    MAIL_INBOUND_SECRET: optionalText
      .pipe(z.string().min(16, 'must be at least 16 characters').optional())
      .meta({
        description:
          'the bearer secret of `POST /mail/inbound` ([answers by mail](mail.md#answers-by-mail))',
      }),
    MAIL_REPLY_DOMAIN: domain.meta({
      description: "the domain of invitations' reply addresses (unset: no reply addresses)",
    }),
    MAIL_REPLY_LOCAL: z
      .string()
      .trim()
      .regex(/^[a-z0-9._-]{1,32}$/i, 'must be 1 to 32 of a-z, 0-9, dot, underscore, hyphen')
      .default('reply')
      .meta({ description: 'the local part of those reply addresses' }),
  },
  configOf: (env): { mail: MailConfig } => {
    // The sender's default is no-reply at PUBLIC_URL's host.
    const host = env.PUBLIC_URL ? new URL(env.PUBLIC_URL).hostname : 'localhost';
    return {
      mail: {
        smtpUrl: env.SMTP_URL ?? null,
        from: env.MAIL_FROM ?? `"Meetings" <no-reply@${host}>`,
        retrySchedule: env.MAIL_RETRY_SCHEDULE ?? MAIL_LIMITS.retrySchedule,
        perSenderPerHour: env.MAIL_PER_SENDER_PER_HOUR,
        inboundSecret: env.MAIL_INBOUND_SECRET ?? null,
        reply: env.MAIL_REPLY_DOMAIN
          ? { local: env.MAIL_REPLY_LOCAL, domain: env.MAIL_REPLY_DOMAIN }
          : null,
      },
    };
  },
});
