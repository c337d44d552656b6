import type { Transporter } from 'nodemailer';
import { MAIL_LIMITS } from './mail.limits';

/** What one attempt came to. */
export type SendOutcome =
  | { sent: true; durationMs: number }
  | {
      sent: false;
      durationMs: number;
      /** The server's reply code, when it answered; null for a network error. */
      code: number | null;
      /** A 5xx: the server refused for good; anything else may pass later. */
      permanent: boolean;
      error: string;
    };

/** Sends composed messages through SMTP_URL. */
export interface MailTransport {
  send(envelope: { from: string; to: string }, raw: string): Promise<SendOutcome>;
  close(): void;
}

/** The reply code of a nodemailer error (its `responseCode`), if the server answered. */
function replyCode(error: unknown): number | null {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' ? code : null;
}

/**
 * nodemailer's SMTP transport: smtp:// upgrades with STARTTLS when the server offers it,
 * smtps:// speaks TLS from the start; credentials come from the URL. One connection per message
 * (a worker sends few at a time), each step bounded by MAIL_LIMITS.timeoutMs. nodemailer is
 * loaded only where SMTP_URL is set (see mail.parse.ts).
 */
export function smtpTransport(smtpUrl: string): MailTransport {
  const transport: Promise<Transporter> = import('nodemailer').then(({ default: nodemailer }) =>
    nodemailer.createTransport({
      url: smtpUrl,
      connectionTimeout: MAIL_LIMITS.timeoutMs,
      greetingTimeout: MAIL_LIMITS.timeoutMs,
      socketTimeout: MAIL_LIMITS.timeoutMs,
    }),
  );
  return {
    async send(envelope, raw) {
      const started = performance.now();
      const durationMs = () => Math.round(performance.now() - started);
      try {
        await (
          await transport
        ).sendMail({ envelope: { from: envelope.from, to: [envelope.to] }, raw });
        return { sent: true, durationMs: durationMs() };
      } catch (error) {
        const code = replyCode(error);
        const message = error instanceof Error ? error.message : String(error);
        return {
          sent: false,
          durationMs: durationMs(),
          code,
          permanent: code !== null && code >= 500,
          error: message.slice(0, MAIL_LIMITS.errorLength),
        };
      }
    },
    close() {
      void transport.then((opened) => opened.close());
    },
  };
}
