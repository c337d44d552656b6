import { DEFAULT_JWT_SECRET } from '../../src/platform/auth/auth.settings';
import { LinkTokens } from '../../src/platform/auth/link-tokens';
import { RestClient } from '../helpers/rest-client';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { keysOf, registerViaRest, sortedKeys, USER_PUBLIC_KEYS } from '../rest/rest-fixtures';
import { postForm } from './mail-fixtures';
import { headerOf, linkIn, SmtpSink } from './smtp-sink';

/*
 * Verification (issue 40): registration on either face sends one message through a real SMTP
 * server (credentials from SMTP_URL) with a link whose page shows a button (GET changes
 * nothing) and whose POST verifies; forged and expired links get a page saying so;
 * resendVerificationEmail sends another until the address is verified.
 */

const ME = `{ me { id emailVerified isVerified } }`;
const VERIFY = `mutation ($token: String!) { verifyEmail(input: { token: $token }) { verified } }`;
const RESEND = `mutation { resendVerificationEmail { sent } }`;

describe('verification messages', () => {
  let t: TestApp;
  let sink: SmtpSink;

  const me = async (user: SeededUser) =>
    (await t.gql.data<{ me: { emailVerified: boolean; isVerified: boolean } }>(ME, {}, user.token))
      .me;
  const page = (path: string, init?: RequestInit) => fetch(`${t.url}${path}`, init);
  const post = (token: string) => postForm(t, '/verify-email', { token });

  beforeAll(async () => {
    sink = await SmtpSink.start();
    t = await startTestApp({ SMTP_URL: sink.url });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('sends one verification message on registration, to that address alone, from the default sender, the name escaped in its HTML', async () => {
    const user = await t.seed.user({ name: 'Ann <b>"Smith"</b>' });
    const [message] = await sink.waitFor(user.email);
    const { parsed, envelope } = message as NonNullable<typeof message>;
    expect(envelope).toEqual({ from: 'no-reply@localhost', to: [user.email] });
    expect(parsed.from?.text).toBe('"Meetings" <no-reply@localhost>');
    expect(parsed.to).toMatchObject({ value: [{ address: user.email }] });
    expect(parsed.subject).toBe('Confirm your e-mail address');
    expect(parsed.messageId).toMatch(/^<[0-9a-f-]{36}@localhost>$/);
    expect(parsed.text).toContain('Hello Ann <b>"Smith"</b>,');
    expect(parsed.html).toContain('Hello Ann &lt;b&gt;&quot;Smith&quot;&lt;/b&gt;,');
    expect(parsed.html).not.toContain('<b>');
    // Verification carries no unsubscribe link: it is the one message a user cannot turn off.
    expect(headerOf(message as NonNullable<typeof message>, 'List-Unsubscribe')).toBeUndefined();
    expect(linkIn(message as NonNullable<typeof message>, '/verify-email')).toMatch(
      /^\/verify-email\?token=[\w%.-]+$/,
    );
  });

  it('shows a button on GET without verifying, verifies on its POST, and answers a second POST the same', async () => {
    const user = await t.seed.user();
    const [message] = await sink.waitFor(user.email);
    const link = linkIn(message as NonNullable<typeof message>, '/verify-email');
    const shown = await page(link);
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toMatch(/<form method="post" action="\/verify-email">/);
    expect(html).toMatch(/<button type="submit">Confirm my address<\/button>/);
    expect(await me(user)).toEqual({ id: user.id, emailVerified: false, isVerified: true });
    const token = new URL(link, t.url).searchParams.get('token') as string;
    const verified = await post(token);
    expect(verified.status).toBe(200);
    expect(await verified.text()).toContain(`${user.email} is confirmed`);
    expect(await me(user)).toMatchObject({ emailVerified: true });
    const again = await post(token);
    expect(again.status).toBe(200);
    expect(await me(user)).toMatchObject({ emailVerified: true });
  });

  it('refuses forged and expired links with a page saying so, and verifyEmail with a field error', async () => {
    const user = await t.seed.user();
    const [message] = await sink.waitFor(user.email);
    const link = linkIn(message as NonNullable<typeof message>, '/verify-email');
    const token = new URL(link, t.url).searchParams.get('token') as string;
    const [body] = token.split('.');
    const forged = `${body}.${'A'.repeat(43)}`;
    const refused = await post(forged);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('This link is not a valid verification link.');
    const garbage = await post('not a token');
    expect(garbage.status).toBe(400);
    const empty = await post('');
    expect(empty.status).toBe(400);
    // Signed as the service signs (its default key material), but a second past its end.
    const expired = LinkTokens.of({ privateKeyPem: null, secret: DEFAULT_JWT_SECRET }).sign(
      'verify-email',
      { u: user.id, e: user.email, exp: Math.floor(Date.now() / 1000) - 1 },
    );
    const late = await post(expired);
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('This verification link has expired.');
    const viaGraphql = await t.gql.request(VERIFY, { token: forged });
    expect(viaGraphql.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { token: 'INVALID_FORMAT' },
    });
    expect(await me(user)).toMatchObject({ emailVerified: false });
    // A link of an address the user no longer has proves nothing.
    const otherAddress = LinkTokens.of({ privateKeyPem: null, secret: DEFAULT_JWT_SECRET }).sign(
      'verify-email',
      { u: user.id, e: `old.${user.email}`, exp: Math.floor(Date.now() / 1000) + 60 },
    );
    const revoked = await post(otherAddress);
    expect(revoked.status).toBe(400);
    expect(await revoked.text()).toContain('an address that has changed');
    const verified = await t.gql.data<{ verifyEmail: unknown }>(VERIFY, { token });
    expect(verified.verifyEmail).toEqual({ verified: true });
    expect(await me(user)).toMatchObject({ emailVerified: true });
  });

  it('sends another message on resendVerificationEmail until the address is verified', async () => {
    const user = await t.seed.user();
    await sink.waitFor(user.email);
    expect(await t.gql.data(RESEND, {}, user.token)).toEqual({
      resendVerificationEmail: { sent: true },
    });
    const both = await sink.waitFor(user.email, 2);
    const [first, second] = both.map((m) => linkIn(m, '/verify-email'));
    const token = new URL(second as string, t.url).searchParams.get('token') as string;
    expect((await post(token)).status).toBe(200);
    expect(first).toBeDefined();
    expect(await t.gql.data(RESEND, {}, user.token)).toEqual({
      resendVerificationEmail: { sent: false },
    });
    const unauthenticated = await t.gql.request(RESEND);
    expect(unauthenticated.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('sends the message on REST registration too, the wire record unchanged', async () => {
    const rest = new RestClient(t.url);
    const { response } = await registerViaRest(rest, {
      name: 'Grace Hopper',
      account: 'grace.hopper',
      email: 'grace.hopper@example.com',
    });
    expect(response.status).toBe(201);
    expect(keysOf(response.body)).toEqual(sortedKeys(USER_PUBLIC_KEYS));
    const [message] = await sink.waitFor('grace.hopper@example.com');
    expect(message?.parsed.subject).toBe('Confirm your e-mail address');
    // One message per registration, whichever face.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sink.to('grace.hopper@example.com')).toHaveLength(1);
  });
});
