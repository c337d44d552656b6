import { readWithIcalJs, valueOf } from '../calendar/documents';
import { CalendarClient } from '../calendar/calendar-client';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { FUTURE, verifiedUser } from './mail-fixtures';

/*
 * Without SMTP_URL outside production (issue 40), messages are kept in the database and listed
 * newest first at /dev/mail, like a mail catcher: each viewable whole, its invite.ics
 * downloadable. The home page links it.
 */

describe('the development mail page', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const page = async (path: string) => {
    const response = await fetch(`${t.url}${path}`);
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      text: await response.text(),
    };
  };
  /** The newest message's id on the page whose subject matches, once it is listed. */
  const listed = async (subject: string): Promise<string> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { text } = await page('/dev/mail');
      const id = new RegExp(`href="/dev/mail/([0-9a-f-]{36})">${subject}<`).exec(text)?.[1];
      if (id) {
        return id;
      }
      if (Date.now() > deadline) {
        throw new Error(`no message "${subject}" on /dev/mail: ${text}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  it('lists kept messages newest first, shows each whole and serves its invite.ics', async () => {
    await t.seed.user();
    await listed('Confirm your e-mail address');
    const owner = await verifiedUser(t);
    const guest = await verifiedUser(t);
    const meetingId = await new CalendarClient(t).meeting(
      owner,
      { title: 'Catcher <demo>', startTime: FUTURE },
      [guest],
    );
    const id = await listed('Invitation: Catcher &lt;demo&gt;');
    const { text: list } = await page('/dev/mail');
    // Newest first: the invitation above the verification message made before it.
    expect(list.indexOf('Invitation: Catcher')).toBeLessThan(list.indexOf('Confirm your e-mail'));
    expect(list).toContain(guest.email);
    const shown = await page(`/dev/mail/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Subject: Invitation: Catcher &lt;demo&gt;');
    expect(shown.text).toContain(`/dev/mail/${id}/invite.ics`);
    expect(shown.text).not.toContain('<demo>');
    const ics = await page(`/dev/mail/${id}/invite.ics`);
    expect(ics.status).toBe(200);
    expect(ics.type).toMatch(/^text\/calendar/);
    const { root, events } = readWithIcalJs(ics.text);
    expect(valueOf(root, 'method')).toBe('REQUEST');
    expect(valueOf(events[0] as never, 'uid')).toBe(meetingId);
    const raw = await page(`/dev/mail/${id}/message.eml`);
    expect(raw.type).toMatch(/^message\/rfc822/);
    expect(raw.text).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=REQUEST/i);
  });

  it('answers 404 pages for unknown messages, and is linked from the home page', async () => {
    expect((await page('/dev/mail/not-an-id')).status).toBe(404);
    expect((await page('/dev/mail/00000000-0000-4000-8000-000000000000/invite.ics')).status).toBe(
      404,
    );
    const home = await page('/');
    expect(home.text).toContain('href="/dev/mail"');
  });
});
