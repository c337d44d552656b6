import type { Received } from './smtp-sink';
import { FUTURE, verifiedUser } from './mail-fixtures';
import { SmtpSink } from './smtp-sink';
import { CalendarClient, WEEKLY_SEMINAR } from '../calendar/calendar-client';
import { attendeesOf, readWithIcalJs, valueOf } from '../calendar/documents';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
/*
 * iTIP/iMIP messages (RFC 5546, RFC 6047) through a real SMTP server, parsed with mailparser and
 * ical.js: an invitation (REQUEST, ORGANIZER, ATTENDEE;RSVP=TRUE, the feed's UID), an update with
 * a higher SEQUENCE, a cancellation, a participant removed, one occurrence cancelled with its
 * RECURRENCE-ID, and the owner's REPLY when an invitee answers. One message per recipient; no
 * message to an address not verified.
 */

const UPDATE = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const REMOVE = `mutation ($input: RemoveParticipantInput!) { removeParticipant(input: $input) { meeting { id } } }`;
const CANCEL_OCCURRENCE = `mutation ($input: CancelOccurrenceInput!) {
  cancelOccurrence(input: $input) { meeting { id } }
}`;

/** The calendar part of a message: its Content-Type and its VEVENTs as ical.js reads them. */
function calendarOf(message: Received) {
  const raw = message.raw;
  const method = /Content-Type: text\/calendar; charset=utf-8; method=([A-Z]+)/i.exec(raw)?.[1];
  const attachment = message.parsed.attachments.find((a) => a.filename === 'invite.ics');
  if (!attachment) {
    throw new Error('no invite.ics attachment');
  }
  const text = attachment.content.toString('utf8');
  const { root, events } = readWithIcalJs(text);
  return { method, text, calendarMethod: valueOf(root, 'method'), events };
}

describe('iTIP messages', () => {
  let t: TestApp;
  let sink: SmtpSink;
  let calendar: CalendarClient;
  let owner: SeededUser;
  let guest: SeededUser;
  let other: SeededUser;
  let unverified: SeededUser;

  const verified = () => verifiedUser(t);
  const only = (address: string, subject: RegExp) =>
    sink.waitFor(address, 1, 15_000, (m) => subject.test(m.parsed.subject ?? ''));

  beforeAll(async () => {
    sink = await SmtpSink.start();
    t = await startTestApp({ SMTP_URL: sink.url });
    calendar = new CalendarClient(t);
    [owner, guest, other] = [await verified(), await verified(), await verified()];
    unverified = await t.seed.user({ name: 'Not Yet Verified' });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('invites each verified invitee with a REQUEST whose VEVENT is the feed’s, one message per recipient, none to an unverified address', async () => {
    const meetingId = await calendar.meeting(
      owner,
      { title: 'Design <review>', startTime: '2030-03-04T09:00:00Z', timeZone: 'Europe/Paris' },
      [guest, other, unverified],
    );
    const [invitation] = await only(guest.email, /^Invitation: Design <review>$/);
    const message = invitation as Received;
    expect(message.envelope.to).toEqual([guest.email]);
    expect(message.raw).not.toContain(other.email.split('@')[0] + '@example.com>');
    expect(message.parsed.html).toContain('Design &lt;review&gt;');
    const itip = calendarOf(message);
    expect(itip.method).toBe('REQUEST');
    expect(itip.calendarMethod).toBe('REQUEST');
    const [event] = itip.events;
    expect(event).toBeDefined();
    const vevent = event as NonNullable<typeof event>;
    const feed = readWithIcalJs((await calendar.readMeeting(meetingId, owner)).text);
    const [feedEvent] = feed.events;
    expect(valueOf(vevent, 'uid')).toBe(valueOf(feedEvent as NonNullable<typeof feedEvent>, 'uid'));
    expect(valueOf(vevent, 'uid')).toBe(meetingId);
    expect(vevent.getFirstProperty('dtstart')?.getParameter('tzid')).toBe('Europe/Paris');
    const organizer = vevent.getFirstProperty('organizer');
    expect(String(organizer?.getFirstValue()).toLowerCase()).toBe(`mailto:${owner.email}`);
    expect(organizer?.getParameter('cn')).toBe(owner.name);
    const attendees = vevent.getAllProperties('attendee');
    const guestLine = attendees.find(
      (a) => String(a.getFirstValue()).toLowerCase() === `mailto:${guest.email}`,
    );
    expect(guestLine?.getParameter('rsvp')).toBe('TRUE');
    expect(guestLine?.getParameter('partstat')).toBe('NEEDS-ACTION');
    expect(guestLine?.getParameter('cn')).toBe(guest.name);
    await only(other.email, /^Invitation: Design <review>$/);
    // The unverified invitee and the owner get nothing.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(
      sink.to(unverified.email).filter((m) => /Invitation/.test(m.parsed.subject ?? '')),
    ).toHaveLength(0);
    expect(
      sink.to(owner.email).filter((m) => /Invitation/.test(m.parsed.subject ?? '')),
    ).toHaveLength(0);
    expect(
      sink.to(guest.email).filter((m) => /Invitation/.test(m.parsed.subject ?? '')),
    ).toHaveLength(1);
  });

  it('lets no title start a header of its own', async () => {
    await calendar.meeting(
      owner,
      { title: 'Sync\r\nBcc: spy@example.com', startTime: '2030-03-05T09:00:00Z' },
      [guest],
    );
    const [message] = await only(guest.email, /^Invitation: Sync/);
    const received = message as Received;
    expect(received.parsed.headers.has('bcc')).toBe(false);
    const headerBlock = received.raw.split(/\r?\n\r?\n/)[0] ?? '';
    expect(headerBlock).not.toMatch(/^Bcc:/im);
    expect(received.envelope.to).toEqual([guest.email]);
    expect(received.parsed.subject).toBe('Invitation: Sync Bcc: spy@example.com');
  });

  it('writes the time in each reader’s own zone', async () => {
    const reader = await verified();
    await t.gql.data(
      `mutation { updateProfile(input: { timeZone: "Asia/Tokyo" }) { user { timeZone } } }`,
      {},
      reader.token,
    );
    await calendar.meeting(owner, { title: 'Zoned call', startTime: '2030-03-04T09:00:00Z' }, [
      reader,
    ]);
    const [message] = await only(reader.email, /^Invitation: Zoned call$/);
    expect(message?.parsed.text).toContain('When: Monday, 4 March 2030 at 18:00 (Asia/Tokyo)');
  });

  it('sends every participant not declined a REQUEST with a higher SEQUENCE on an edit, and a CANCEL on cancellation', async () => {
    const meetingId = await calendar.meeting(owner, { title: 'Budget', startTime: FUTURE }, [
      guest,
    ]);
    const [invitation] = await only(guest.email, /^Invitation: Budget$/);
    const before = Number(
      valueOf(calendarOf(invitation as Received).events[0] as never, 'sequence'),
    );
    await t.gql.data(UPDATE, { input: { meetingId, title: 'Budget 2031' } }, owner.token);
    const [update] = await only(guest.email, /^Updated: Budget 2031$/);
    const updated = calendarOf(update as Received);
    expect(updated.method).toBe('REQUEST');
    const after = Number(valueOf(updated.events[0] as never, 'sequence'));
    expect(after).toBeGreaterThan(before);
    expect(valueOf(updated.events[0] as never, 'uid')).toBe(meetingId);
    await calendar.act('cancelMeeting', meetingId, owner);
    const [cancel] = await only(guest.email, /^Cancelled: Budget 2031$/);
    const cancelled = calendarOf(cancel as Received);
    expect(cancelled.method).toBe('CANCEL');
    expect(valueOf(cancelled.events[0] as never, 'status')).toBe('CANCELLED');
    expect(valueOf(cancelled.events[0] as never, 'uid')).toBe(meetingId);
  });

  it('sends a removed participant a CANCEL naming them alone', async () => {
    const meetingId = await calendar.meeting(owner, { title: 'Offsite', startTime: FUTURE }, [
      guest,
      other,
    ]);
    await only(other.email, /^Invitation: Offsite$/);
    await t.gql.data(REMOVE, { input: { meetingId, userId: other.id } }, owner.token);
    const [cancel] = await only(other.email, /^Cancelled: Offsite$/);
    const itip = calendarOf(cancel as Received);
    expect(itip.method).toBe('CANCEL');
    expect(attendeesOf(itip.events[0] as never)).toEqual([
      `mailto:${other.email} DECLINED (${other.name})`,
    ]);
  });

  it('sends a CANCEL with the RECURRENCE-ID of one cancelled occurrence', async () => {
    const meetingId = await calendar.meeting(owner, WEEKLY_SEMINAR, [guest]);
    await only(guest.email, /^Invitation: Seminar$/);
    await t.gql.data(
      CANCEL_OCCURRENCE,
      { input: { meetingId, originalStartTime: '2028-01-13T09:00:00Z' } },
      owner.token,
    );
    const [cancel] = await only(guest.email, /^Cancelled: Seminar \(one occurrence\)$/);
    const itip = calendarOf(cancel as Received);
    expect(itip.method).toBe('CANCEL');
    const [event] = itip.events;
    expect(valueOf(event as never, 'uid')).toBe(meetingId);
    const recurrenceId = (event as NonNullable<typeof event>).getFirstProperty('recurrence-id');
    expect(recurrenceId?.getParameter('tzid')).toBe('Europe/Berlin');
    expect(String(recurrenceId?.getFirstValue())).toBe('2028-01-13T10:00:00');
    expect(valueOf(event as never, 'status')).toBe('CANCELLED');
  });

  it('sends the owner a REPLY with the attendee’s PARTSTAT when an invitee answers', async () => {
    const meetingId = await calendar.meeting(owner, { title: 'Retrospective', startTime: FUTURE }, [
      guest,
    ]);
    await only(guest.email, /^Invitation: Retrospective$/);
    await calendar.act('approveMeeting', meetingId, guest);
    const [reply] = await only(owner.email, new RegExp(`^${guest.name} accepted: Retrospective$`));
    const itip = calendarOf(reply as Received);
    expect(itip.method).toBe('REPLY');
    expect(attendeesOf(itip.events[0] as never)).toEqual([
      `mailto:${guest.email} ACCEPTED (${guest.name})`,
    ]);
  });
});
