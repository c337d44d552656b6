import MailComposer from 'nodemailer/lib/mail-composer';
import { CalendarClient } from '../calendar/calendar-client';
import { ICAL } from '../calendar/parsers';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { FUTURE, verifiedUser } from './mail-fixtures';
import { type Received, SmtpSink } from './smtp-sink';

/*
 * Answers by mail (issue 40): with MAIL_REPLY_DOMAIN, every invitation's ORGANIZER is a
 * per-invitation reply address; a calendar app's iTIP REPLY to it, forwarded to POST
 * /mail/inbound as message/rfc822 with the secret, answers for that participant only.
 */

const SECRET = 'inbound-secret-0123456789';
const PARTICIPANTS = `query ($id: UUID!) { meeting(meetingId: $id) { participants { user { id } status } } }`;

describe('answers by mail', () => {
  let t: TestApp;
  let sink: SmtpSink;
  let owner: SeededUser;
  let guest: SeededUser;
  let other: SeededUser;
  let meetingId: string;

  const statuses = async () => {
    const data = await t.gql.data<{
      meeting: { participants: Array<{ user: { id: string }; status: string }> };
    }>(PARTICIPANTS, { id: meetingId }, owner.token);
    return Object.fromEntries(data.meeting.participants.map((p) => [p.user.id, p.status]));
  };
  const invitationOf = async (user: SeededUser): Promise<Received> => {
    const [message] = await sink.waitFor(user.email, 1, 15_000, (m) =>
      (m.parsed.subject ?? '').startsWith('Invitation: Mailed answers'),
    );
    return message as Received;
  };
  /** The invitation's calendar and its ORGANIZER address. */
  const calendarOf = (message: Received) => {
    const part = message.parsed.attachments.find((a) => a.filename === 'invite.ics');
    const root = new ICAL.Component(ICAL.parse(part?.content.toString('utf8') ?? ''));
    const event = root.getFirstSubcomponent('vevent');
    const organizer = String(event?.getFirstPropertyValue('organizer')).replace(/^mailto:/i, '');
    return { root, event, organizer };
  };
  /**
   * The REPLY a calendar app sends: the invitation's VEVENT with METHOD:REPLY and one ATTENDEE
   * (`who`, answering `partstat`), from `from` to the ORGANIZER address, composed by nodemailer.
   */
  const replyMessage = async (
    invitation: Received,
    from: SeededUser,
    who: SeededUser,
    partstat: string,
  ): Promise<Buffer> => {
    const { root, event, organizer } = calendarOf(invitation);
    root.updatePropertyWithValue('method', 'REPLY');
    for (const attendee of event?.getAllProperties('attendee') ?? []) {
      event?.removeProperty(attendee);
    }
    const attendee = event?.addPropertyWithValue('attendee', `mailto:${who.email}`);
    attendee?.setParameter('partstat', partstat);
    attendee?.setParameter('cn', who.name);
    const composer = new MailComposer({
      from: from.email,
      to: organizer,
      subject: `${partstat}: Mailed answers`,
      text: `${who.name} answered ${partstat}.`,
      icalEvent: { method: 'REPLY', content: root.toString() },
    });
    return composer.compile().build();
  };
  const inbound = (body: Buffer | string, authorization?: string) =>
    fetch(`${t.url}/mail/inbound`, {
      method: 'POST',
      headers: {
        'content-type': 'message/rfc822',
        ...(authorization ? { authorization } : {}),
      },
      body,
    });

  beforeAll(async () => {
    sink = await SmtpSink.start();
    t = await startTestApp({
      SMTP_URL: sink.url,
      MAIL_REPLY_DOMAIN: 'reply.example.com',
      MAIL_INBOUND_SECRET: SECRET,
    });
    [owner, guest, other] = [await verifiedUser(t), await verifiedUser(t), await verifiedUser(t)];
    meetingId = await new CalendarClient(t).meeting(
      owner,
      { title: 'Mailed answers', startTime: FUTURE },
      [guest, other],
    );
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('names a per-invitation reply address as ORGANIZER, with the owner’s name', async () => {
    const [mine, theirs] = [await invitationOf(guest), await invitationOf(other)];
    const { event, organizer } = calendarOf(mine);
    expect(organizer).toMatch(/^reply\+[0-9a-f]{56}@reply\.example\.com$/);
    expect(organizer.split('@')[0]?.length).toBeLessThanOrEqual(64);
    expect(event?.getFirstProperty('organizer')?.getParameter('cn')).toBe(owner.name);
    expect(calendarOf(theirs).organizer).not.toBe(organizer);
  });

  it('refuses a message without the secret (401) and changes nothing', async () => {
    const reply = await replyMessage(await invitationOf(guest), guest, guest, 'ACCEPTED');
    expect((await inbound(reply)).status).toBe(401);
    expect((await inbound(reply, 'Bearer not-the-secret-at-all')).status).toBe(401);
    expect((await statuses())[guest.id]).toBe('NEW');
  });

  it('ignores a REPLY naming another attendee, TENTATIVE, and malformed messages (202)', async () => {
    const invitation = await invitationOf(guest);
    const forOther = await replyMessage(invitation, guest, other, 'DECLINED');
    const answer = await inbound(forOther, `Bearer ${SECRET}`);
    expect(answer.status).toBe(202);
    expect(await answer.json()).toEqual({ status: 'ignored' });
    const tentative = await replyMessage(await invitationOf(other), other, other, 'TENTATIVE');
    expect((await inbound(tentative, `Bearer ${SECRET}`)).status).toBe(202);
    expect((await inbound('not a mail message at all', `Bearer ${SECRET}`)).status).toBe(202);
    expect(await statuses()).toMatchObject({ [guest.id]: 'NEW', [other.id]: 'NEW' });
  });

  it('applies a calendar app’s REPLY for the address’s participant', async () => {
    const reply = await replyMessage(await invitationOf(guest), guest, guest, 'ACCEPTED');
    const answer = await inbound(reply, `Bearer ${SECRET}`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ status: 'applied' });
    expect(await statuses()).toMatchObject({ [guest.id]: 'ACCEPTED', [other.id]: 'NEW' });
    // The owner hears of it as from any face.
    await sink.waitFor(owner.email, 1, 15_000, (m) =>
      (m.parsed.subject ?? '').startsWith(`${guest.name} accepted`),
    );
  });
});
