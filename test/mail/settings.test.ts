import type { Logger } from 'pino';
import pino from 'pino';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/app-config';
import { ConfigError } from '../../src/config';
import { startTestApp } from '../helpers/test-app';

/*
 * Mail's settings (issue 40), validated at start with errors that name the variable, and their
 * defaults; production without SMTP_URL runs with mail off and says so in one start-log line,
 * and its meetings' reminders still come due (their REMINDER events, without mail).
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

  it('still schedules reminders with mail off: their REMINDER event comes, and no message is kept', async () => {
    const t = await startTestApp({
      NODE_ENV: 'production',
      JWT_SECRET: 'a-production-secret-of-length',
    });
    try {
      const [owner, guest] = [await t.seed.user(), await t.seed.user()];
      // A minute before a start 65 s away: due in about 5 s.
      const startTime = new Date(Date.now() + 65_000).toISOString();
      const created = await t.gql.data<{ createMeeting: { meeting: { id: string } } }>(
        `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
          createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { id } }
        }`,
        {
          meeting: {
            title: 'Quiet standup',
            location: 'Room 101',
            startTime,
            reminderMinutes: [1],
          },
          participants: [{ userId: guest.id }],
        },
        owner.token,
      );
      const reminders = async () => {
        const page = await t.gql.data<{
          myMeetingEvents: { edges: Array<{ node: { kind: string; meeting: { id: string } } }> };
        }>(
          `{ myMeetingEvents(first: 100) { edges { node { kind meeting { id } } } } }`,
          {},
          owner.token,
        );
        return page.myMeetingEvents.edges.filter(({ node }) => node.kind === 'REMINDER');
      };
      const deadline = Date.now() + 15_000;
      while ((await reminders()).length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect((await reminders()).map(({ node }) => node.meeting.id)).toEqual([
        created.createMeeting.meeting.id,
      ]);
      const [{ kept }] = await t.instance.database.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ kept: number }>>(`select count(*)::int as "kept" from "mail_messages"`);
      expect(kept).toBe(0);
    } finally {
      await t.close();
    }
  }, 30_000);
});
