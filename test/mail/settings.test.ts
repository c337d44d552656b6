import type { Logger } from 'pino';
import pino from 'pino';
import { Writable } from 'node:stream';
import { ConfigError, loadConfig } from '../../src/config';
import { startTestApp } from '../helpers/test-app';

/*
 * Mail's settings (issue 40), validated at start with errors that name the variable, and their
 * defaults; production without SMTP_URL runs with mail off and says so in one start-log line.
 */

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      return error.problems;
    }
    throw error;
  }
  return [];
};

describe('mail settings', () => {
  it('defaults: no SMTP, the sender at PUBLIC_URL’s host, the retry schedule and the hourly cap', () => {
    expect(loadConfig({}).mail).toEqual({
      smtpUrl: null,
      from: '"Meetings" <no-reply@localhost>',
      retrySchedule: [60, 300, 1800, 7200],
      perSenderPerHour: 200,
      inboundSecret: null,
      reply: null,
    });
    expect(loadConfig({ PUBLIC_URL: 'https://meet.example.com/app' }).mail.from).toBe(
      '"Meetings" <no-reply@meet.example.com>',
    );
    expect(
      loadConfig({
        SMTP_URL: 'smtps://user:secret@smtp.example.com:465',
        MAIL_FROM: 'Team <team@example.com>',
        MAIL_RETRY_SCHEDULE: '5, 10',
        MAIL_PER_SENDER_PER_HOUR: '20',
        MAIL_REPLY_DOMAIN: 'reply.example.com',
        MAIL_INBOUND_SECRET: 'a-secret-of-some-length',
      }).mail,
    ).toEqual({
      smtpUrl: 'smtps://user:secret@smtp.example.com:465',
      from: 'Team <team@example.com>',
      retrySchedule: [5, 10],
      perSenderPerHour: 20,
      inboundSecret: 'a-secret-of-some-length',
      reply: { local: 'reply', domain: 'reply.example.com' },
    });
  });

  it('refuses bad values with a problem naming the variable', () => {
    expect(problemsOf({ SMTP_URL: 'http://smtp.example.com' })).toEqual([
      expect.stringMatching(/^SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/),
    ]);
    expect(problemsOf({ MAIL_FROM: 'Meetings <no address>' })).toEqual([
      expect.stringMatching(/^MAIL_FROM: must be an address/),
    ]);
    expect(problemsOf({ MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' })).toEqual([
      expect.stringMatching(/^MAIL_FROM:/),
    ]);
    expect(problemsOf({ MAIL_RETRY_SCHEDULE: 'soon' })).toEqual([
      expect.stringMatching(/^MAIL_RETRY_SCHEDULE: must be seconds separated by commas/),
    ]);
    expect(problemsOf({ MAIL_PER_SENDER_PER_HOUR: '-1' })).toEqual([
      expect.stringMatching(/^MAIL_PER_SENDER_PER_HOUR:/),
    ]);
    expect(problemsOf({ MAIL_INBOUND_SECRET: 'short' })).toEqual([
      expect.stringMatching(/^MAIL_INBOUND_SECRET: must be at least 16 characters/),
    ]);
    expect(problemsOf({ MAIL_REPLY_DOMAIN: 'not a domain' })).toEqual([
      expect.stringMatching(/^MAIL_REPLY_DOMAIN: must be a domain name/),
    ]);
  });

  it('says in one start-log line that mail is off in production without SMTP_URL', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const t = await startTestApp(
      { NODE_ENV: 'production', JWT_SECRET: 'a-production-secret-of-length', LOG_LEVEL: 'info' },
      { logger: (): Logger => pino({ level: 'info' }, sink) },
    );
    try {
      const off = lines
        .map((line) => JSON.parse(line) as { component?: string; msg: string })
        .filter((line) => line.component === 'mail');
      expect(off).toEqual([
        expect.objectContaining({
          msg: 'mail is off: set SMTP_URL to send invitations and reminders',
        }),
      ]);
      // The development page keeps nothing there.
      const page = await (await fetch(`${t.url}/dev/mail`)).text();
      expect(page).toContain('Messages are not kept here');
    } finally {
      await t.close();
    }
  });
});
