import { DEFAULT_JWT_SECRET } from '../../src/platform/auth/auth.settings';
import { LinkTokens } from '../../src/platform/auth/link-tokens';
import { CalendarClient } from '../calendar/calendar-client';
import { waitForSettledChanges } from '../helpers/live-client';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { FUTURE, postForm, verifiedUser } from './mail-fixtures';
import { linkIn, SmtpSink } from './smtp-sink';
/*
 * One-click answers (issue 40): every invitation carries Accept and Decline links. GET shows the
 * meeting and a button and changes nothing; the button's POST answers once (a second POST
 * answers the same, with no second event); forged, expired and revoked links get a page.
 */

const PARTICIPANTS = `query ($id: UUID!) { meeting(meetingId: $id) { participants { user { id } status } } }`;
const EVENTS = `{ myMeetingEvents(first: 100) { nodes { kind userId meeting { id } } } }`;
const REMOVE = `mutation ($input: RemoveParticipantInput!) { removeParticipant(input: $input) { meeting { id } } }`;

describe('RSVP links', () => {
  let t: TestApp;
  let sink: SmtpSink;
  let calendar: CalendarClient;
  let owner: SeededUser;

  const verified = () => verifiedUser(t);
  const statusOf = async (meetingId: string, user: SeededUser) => {
    const data = await t.gql.data<{
      meeting: { participants: Array<{ user: { id: string }; status: string }> };
    }>(PARTICIPANTS, { id: meetingId }, owner.token);
    return data.meeting.participants.find((p) => p.user.id === user.id)?.status;
  };
  const invitationLinks = async (guest: SeededUser, title: string) => {
    const [message] = await sink.waitFor(guest.email, 1, 15_000, (m) =>
      (m.parsed.subject ?? '').startsWith(`Invitation: ${title}`),
    );
    const received = message as NonNullable<typeof message>;
    const accept = linkIn(received, '/rsvp/');
    expect(accept).toMatch(/^\/rsvp\/[\w%.-]+\?answer=accept$/);
    expect(received.parsed.text).toContain(accept.replace('accept', 'decline'));
    return { accept, decline: accept.replace('accept', 'decline') };
  };
  const post = (link: string, answer: string) => postForm(t, link.split('?')[0] ?? '', { answer });

  beforeAll(async () => {
    sink = await SmtpSink.start();
    t = await startTestApp({ SMTP_URL: sink.url });
    calendar = new CalendarClient(t);
    owner = await verified();
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('shows the meeting and a button on GET and changes nothing', async () => {
    const guest = await verified();
    const meetingId = await calendar.meeting(owner, { title: 'Kick-off', startTime: FUTURE }, [
      guest,
    ]);
    const { accept, decline } = await invitationLinks(guest, 'Kick-off');
    const shown = await fetch(`${t.url}${accept}`);
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain('<strong>Kick-off</strong>');
    expect(html).toMatch(/<button type="submit">Accept<\/button>/);
    expect(html).not.toMatch(/>Decline</);
    expect(await (await fetch(`${t.url}${decline}`)).text()).toMatch(/>Decline<\/button>/);
    expect(await statusOf(meetingId, guest)).toBe('NEW');
  });

  it('accepts once on POST: a second POST answers the same, with no second event', async () => {
    const guest = await verified();
    const meetingId = await calendar.meeting(owner, { title: 'Planning', startTime: FUTURE }, [
      guest,
    ]);
    const { accept } = await invitationLinks(guest, 'Planning');
    const first = await post(accept, 'accept');
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('You accepted this invitation.');
    expect(await statusOf(meetingId, guest)).toBe('ACCEPTED');
    const second = await post(accept, 'accept');
    expect(second.status).toBe(200);
    await waitForSettledChanges(t.instance);
    const events = await t.gql.data<{
      myMeetingEvents: { nodes: Array<{ kind: string; userId: string; meeting: { id: string } }> };
    }>(EVENTS, {}, guest.token);
    const answers = events.myMeetingEvents.nodes.filter(
      (e) => e.meeting.id === meetingId && e.kind === 'PARTICIPANT_ANSWERED',
    );
    expect(answers).toEqual([
      { kind: 'PARTICIPANT_ANSWERED', userId: guest.id, meeting: { id: meetingId } },
    ]);
    // The owner hears of it once, as a REPLY.
    await sink.waitFor(owner.email, 1, 15_000, (m) =>
      /accepted: Planning$/.test(m.parsed.subject ?? ''),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(
      sink.to(owner.email).filter((m) => /accepted: Planning$/.test(m.parsed.subject ?? '')),
    ).toHaveLength(1);
  });

  it('declines through the decline link, as declineMeeting would', async () => {
    const guest = await verified();
    const meetingId = await calendar.meeting(owner, { title: 'Review', startTime: FUTURE }, [
      guest,
    ]);
    const { decline } = await invitationLinks(guest, 'Review');
    const declined = await post(decline, 'decline');
    expect(declined.status).toBe(200);
    expect(await statusOf(meetingId, guest)).toBe('DECLINED');
  });

  it('refuses forged, expired and revoked links with a page, never a 500', async () => {
    const guest = await verified();
    const meetingId = await calendar.meeting(owner, { title: 'Standup', startTime: FUTURE }, [
      guest,
    ]);
    const { accept } = await invitationLinks(guest, 'Standup');
    const token = decodeURIComponent(accept.split('/')[2]?.split('?')[0] ?? '');
    const [body] = token.split('.');
    const forged = `/rsvp/${body}.${'A'.repeat(43)}?answer=accept`;
    const forgedGet = await fetch(`${t.url}${forged}`);
    expect(forgedGet.status).toBe(400);
    expect(await forgedGet.text()).toContain('not a valid invitation link');
    expect((await post(forged, 'accept')).status).toBe(400);
    expect((await fetch(`${t.url}/rsvp/%25%25%25`)).status).toBe(400);
    const expired = LinkTokens.of({ privateKeyPem: null, secret: DEFAULT_JWT_SECRET }).sign(
      'rsvp',
      {
        m: meetingId,
        u: guest.id,
        exp: Math.floor(Date.now() / 1000) - 1,
      },
    );
    const late = await post(`/rsvp/${encodeURIComponent(expired)}`, 'accept');
    expect(late.status).toBe(410);
    expect(await late.text()).toContain('has expired');
    await t.gql.data(REMOVE, { input: { meetingId, userId: guest.id } }, owner.token);
    const revoked = await post(accept, 'accept');
    expect(revoked.status).toBe(410);
    expect(await revoked.text()).toContain('not a participant');
    expect((await post(accept, 'maybe')).status).toBe(400);
  });
});
