import { z } from 'zod';
import { secondsList } from '../../platform/shared/seconds-list';
import { MAIL_LIMITS } from './mail.limits';

// The mail settings' own validation, read by src/config.ts. A leaf file (zod and the limits
// only): the configuration is read before tracing starts, when nothing else may load yet.

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

/** The environment variables of mail (docs/mail.md explains each). */
export const MAIL_ENV = {
  SMTP_URL: smtpUrl,
  MAIL_FROM: mailFrom,
  MAIL_RETRY_SCHEDULE: secondsList(MAIL_LIMITS.retries),
  MAIL_PER_SENDER_PER_HOUR: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(MAIL_LIMITS.perSenderPerHour),
  MAIL_INBOUND_SECRET: optionalText.pipe(
    z.string().min(16, 'must be at least 16 characters').optional(),
  ),
  MAIL_REPLY_DOMAIN: domain,
  MAIL_REPLY_LOCAL: z
    .string()
    .trim()
    .regex(/^[a-z0-9._-]{1,32}$/i, 'must be 1 to 32 of a-z, 0-9, dot, underscore, hyphen')
    .default('reply'),
};

/** What the mail variables give, parsed. */
type MailEnv = z.infer<z.ZodObject<typeof MAIL_ENV>>;

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

/** The mail configuration; the sender's default is no-reply at PUBLIC_URL's host. */
export function mailConfigOf(env: MailEnv, publicUrl: string | null): MailConfig {
  const host = publicUrl ? new URL(publicUrl).hostname : 'localhost';
  return {
    smtpUrl: env.SMTP_URL ?? null,
    from: env.MAIL_FROM ?? `"Meetings" <no-reply@${host}>`,
    retrySchedule: env.MAIL_RETRY_SCHEDULE ?? MAIL_LIMITS.retrySchedule,
    perSenderPerHour: env.MAIL_PER_SENDER_PER_HOUR,
    inboundSecret: env.MAIL_INBOUND_SECRET ?? null,
    reply: env.MAIL_REPLY_DOMAIN
      ? { local: env.MAIL_REPLY_LOCAL, domain: env.MAIL_REPLY_DOMAIN }
      : null,
  };
}
