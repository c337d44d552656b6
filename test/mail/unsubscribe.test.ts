import { postForm, verifiedUser } from './mail-fixtures';
import { headerOf, type Received, SmtpSink } from './smtp-sink';
import { CalendarClient } from '../calendar/calendar-client';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

/*
 * Preferences and one-click unsubscribe (issue 40, RFC 8058): User.mailPreferences, set by
 * updateProfile and shown to the user alone; every message but verification carries
 * List-Unsubscribe and List-Unsubscribe-Post; the link's GET changes nothing, its POST turns
 * that kind off without sign-in, and the next message of the kind is not sent.
 */

const PREFERENCES = `{ me { mailPreferences { invitations updates answers reminders } } }`;
const SET = `mutation ($input: UpdateProfileInput!) {
  updateProfile(input: $input) { user { mailPreferences { invitations updates answers reminders } } }
}`;
const USER = `query ($account: String!) { user(account: $account) { mailPreferences { reminders } } }`;

describe('mail preferences and unsubscribe', () => {
  let t: TestApp;
  let sink: SmtpSink;
  let calendar: CalendarClient;
  let owner: SeededUser;

  const invitation = (to: SeededUser) =>
    sink.waitFor(to.email, 1, 15_000, (m) => /^Invitation: /.test(m.parsed.subject ?? ''));
  const preferences = async (user: SeededUser) =>
    (
      await t.gql.data<{ me: { mailPreferences: Record<string, boolean> } }>(
        PREFERENCES,
        {},
        user.token,
      )
    ).me.mailPreferences;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    t = await startTestApp({ SMTP_URL: sink.url, PUBLIC_URL: 'https://meet.example.com' });
    calendar = new CalendarClient(t);
    owner = await verifiedUser(t);
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('has every kind on at first, turns kinds on and off through updateProfile, and shows them to the user alone', async () => {
    const user = await verifiedUser(t);
    expect(await preferences(user)).toEqual({
      invitations: true,
      updates: true,
      answers: true,
      reminders: true,
    });
    const changed = await t.gql.data<{
      updateProfile: { user: { mailPreferences: Record<string, boolean> } };
    }>(SET, { input: { mailPreferences: { reminders: false, updates: false } } }, user.token);
    expect(changed.updateProfile.user.mailPreferences).toEqual({
      invitations: true,
      updates: false,
      answers: true,
      reminders: false,
    });
    await t.gql.data(SET, { input: { mailPreferences: { updates: true } } }, user.token);
    expect(await preferences(user)).toMatchObject({ updates: true, reminders: false });
    const seen = await t.gql.data<{ user: { mailPreferences: unknown } }>(
      USER,
      { account: user.account },
      owner.token,
    );
    expect(seen.user.mailPreferences).toBeNull();
    const refused = await t.gql.request(
      SET,
      { input: { mailPreferences: { reminders: 'no' } } },
      user.token,
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('puts List-Unsubscribe and List-Unsubscribe-Post on an invitation, and neither on verification', async () => {
    // Verified only once its verification message came (a verified address is sent none).
    const guest = await t.seed.user();
    const [verification] = await sink.waitFor(guest.email, 1, 15_000, (m) =>
      /^Confirm/.test(m.parsed.subject ?? ''),
    );
    await t.seed.update(guest, { emailVerified: true });
    expect(headerOf(verification as Received, 'List-Unsubscribe')).toBeUndefined();
    expect(headerOf(verification as Received, 'List-Unsubscribe-Post')).toBeUndefined();
    await calendar.meeting(owner, { startTime: '2030-06-01T09:00:00Z' }, [guest]);
    const [message] = await invitation(guest);
    const received = message as Received;
    expect(headerOf(received, 'List-Unsubscribe')).toMatch(
      /^<https:\/\/meet\.example\.com\/mail\/unsubscribe\?token=[\w%.-]+>$/,
    );
    expect(headerOf(received, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
  });

  it('changes nothing on GET, turns the kind off on the one-click POST, and the next invitation is not mailed', async () => {
    const [guest, other] = [await verifiedUser(t), await verifiedUser(t)];
    await calendar.meeting(owner, { startTime: '2030-06-02T09:00:00Z' }, [guest]);
    const link = headerOf((await invitation(guest))[0] as Received, 'List-Unsubscribe') ?? '';
    const path = new URL(link.slice(1, -1)).pathname + new URL(link.slice(1, -1)).search;

    const page = await fetch(`${t.url}${path}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('invitations');
    expect(html).toContain('<form method="post"');
    expect(await preferences(guest)).toMatchObject({ invitations: true });

    // As a mail client's one-click POST (RFC 8058): no cookie, no sign-in.
    const posted = await postForm(t, path, { 'List-Unsubscribe': 'One-Click' });
    expect(posted.status).toBe(200);
    expect(await preferences(guest)).toEqual({
      invitations: false,
      updates: true,
      answers: true,
      reminders: true,
    });
    expect((await postForm(t, path, { 'List-Unsubscribe': 'One-Click' })).status).toBe(200);

    // One meeting invites both: the other's invitation comes, the unsubscribed guest's does not.
    await calendar.meeting(owner, { startTime: '2030-06-03T09:00:00Z' }, [guest, other]);
    await invitation(other);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(
      sink.to(guest.email).filter((m) => /^Invitation/.test(m.parsed.subject ?? '')),
    ).toHaveLength(1);
  });

  it('answers a forged link with a page saying so, changing nothing', async () => {
    const forged = await postForm(t, '/mail/unsubscribe?token=e30.AAAA', {});
    expect(forged.status).toBe(400);
    expect((await fetch(`${t.url}/mail/unsubscribe?token=nope`)).status).toBe(400);
  });
});
