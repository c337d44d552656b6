import { verifiedUser } from './mail-fixtures';
import { type Received, SmtpSink } from './smtp-sink';
import { CalendarClient } from '../calendar/calendar-client';
import type { SeededUser } from '../helpers/seed';
import { startTestApp } from '../helpers/test-app';

/*
 * An SMTP outage (issue 40, fault): the server is away (its listener closed) for 30 s, then
 * answers 451 for 5 s, then takes mail again. Messages made before and during the outage are
 * each delivered exactly once (the same Message-ID, never twice), none given up.
 */

const SECOND = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = (at: number) => sleep(Math.max(0, at - Date.now()));

describe('an SMTP outage', () => {
  it('delivers every message exactly once after 30 s away and 5 s of 451 answers', async () => {
    const first = await SmtpSink.start();
    const port = first.port;
    await first.close();
    const began = Date.now();
    const t = await startTestApp({
      SMTP_URL: `smtp://mailer:mailer-password@127.0.0.1:${port}`,
      // Twenty retries about 3 s apart: a minute of cover, at least 48 s with the jitter.
      MAIL_RETRY_SCHEDULE: Array.from({ length: 20 }, () => '3').join(','),
    });
    let sink: SmtpSink | null = null;
    try {
      const calendar = new CalendarClient(t);
      // Before the outage is noticed: registrations (verification messages).
      const early = [await t.seed.user(), await t.seed.user(), await t.seed.user()];
      // During it: invitations of verified users.
      await until(began + 12 * SECOND);
      const owner = await verifiedUser(t);
      const guests: SeededUser[] = [await verifiedUser(t), await verifiedUser(t)];
      await calendar.meeting(owner, { startTime: '2030-07-01T09:00:00Z' }, guests);

      await until(began + 30 * SECOND);
      const back = Date.now();
      sink = await SmtpSink.start(() => (Date.now() - back < 5 * SECOND ? 451 : null), port);
      const invitation = (m: Received) => /^Invitation: /.test(m.parsed.subject ?? '');
      for (const user of early) {
        await sink.waitFor(user.email, 1, 25 * SECOND);
      }
      for (const guest of guests) {
        await sink.waitFor(guest.email, 1, 25 * SECOND, invitation);
      }
      // Room for a duplicate to come, had an attempt been made twice.
      await sleep(4 * SECOND);
      expect(sink.tries).toBeGreaterThan(sink.messages.length);
      for (const user of early) {
        expect(sink.to(user.email).map((m) => m.parsed.subject)).toEqual([
          'Confirm your e-mail address',
        ]);
      }
      for (const guest of guests) {
        expect(sink.to(guest.email).filter(invitation)).toHaveLength(1);
        // Verified at once: its verification message was made, or not, but never sent twice.
        expect(sink.to(guest.email).length).toBeLessThanOrEqual(2);
      }
      const ids = sink.messages.map((m) => m.parsed.messageId);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await t.close();
      await sink?.close();
    }
  }, 70_000);
});
