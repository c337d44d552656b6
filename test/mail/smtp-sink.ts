import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A message as the SMTP server took it: its envelope, its bytes, and mailparser's reading. */
export interface Received {
  envelope: { from: string; to: string[] };
  raw: string;
  parsed: ParsedMail;
}

/** How the server answers the n-th message (0-based): accept (null) or refuse with a code. */
export type Answer = (n: number) => number | null;

export const SMTP_USER = 'mailer';
export const SMTP_PASSWORD = 'mailer-password';

/**
 * A real SMTP server (smtp-server) on 127.0.0.1 that asks for the credentials the service's
 * SMTP_URL carries and keeps every message it accepts; `answer` can refuse some (451, 550).
 */
export class SmtpSink {
  readonly messages: Received[] = [];
  /** Every DATA the server was sent, accepted or refused. */
  tries = 0;
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
    public answer: Answer,
  ) {}

  static async start(answer: Answer = () => null, port = 0): Promise<SmtpSink> {
    let sink: SmtpSink | null = null;
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, callback) {
        const ok = auth.username === SMTP_USER && auth.password === SMTP_PASSWORD;
        callback(
          ok ? null : new Error('Invalid credentials'),
          ok ? { user: SMTP_USER } : undefined,
        );
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          void (sink as SmtpSink).take(Buffer.concat(chunks).toString('utf8'), session, callback);
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    sink = new SmtpSink(server, (server.server.address() as AddressInfo).port, answer);
    return sink;
  }

  /** The SMTP_URL of this server, credentials in it. */
  get url(): string {
    return `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${this.port}`;
  }

  private async take(
    raw: string,
    session: {
      envelope: { mailFrom: false | { address: string }; rcptTo: Array<{ address: string }> };
    },
    callback: (error?: Error | null) => void,
  ): Promise<void> {
    const n = this.tries;
    this.tries += 1;
    const code = this.answer(n);
    if (code !== null) {
      callback(Object.assign(new Error(`refused with ${code}`), { responseCode: code }));
      return;
    }
    const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const to = session.envelope.rcptTo.map((r) => r.address);
    this.messages.push({ envelope: { from, to }, raw, parsed: await simpleParser(raw) });
    callback();
    for (const wake of this.waiters.splice(0)) {
      wake();
    }
  }

  /** The messages to `address`, once `count` of them came (or fails after `timeoutMs`). */
  async waitFor(
    address: string,
    count = 1,
    timeoutMs = 15_000,
    where: (m: Received) => boolean = () => true,
  ): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.to(address).filter(where);
      if (found.length >= count) {
        return found;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`${found.length} of ${count} messages to ${address} after ${timeoutMs} ms`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The messages to `address` so far. */
  to(address: string): Received[] {
    return this.messages.filter((m) => m.envelope.to.includes(address));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The first link of a message's text whose path starts with `path`, as a path and query. */
export function linkIn(message: Received, path: string): string {
  const text = message.parsed.text ?? '';
  const match = new RegExp(`https?://[^\\s/]+(${path.replace(/\//g, '\\/')}[^\\s]*)`).exec(text);
  if (!match?.[1]) {
    throw new Error(`no ${path} link in: ${text}`);
  }
  return match[1];
}

/**
 * A header of a message as its (unfolded) line says it, or undefined. mailparser files List-*
 * headers under `list`, so `parsed.headers` does not name them.
 */
export function headerOf(message: Received, name: string): string | undefined {
  const line = message.parsed.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line?.replace(/\r?\n[ \t]+/g, ' ').replace(/^[^:]+:\s*/, '');
}
