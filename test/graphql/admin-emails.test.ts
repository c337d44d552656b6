import { loadConfig } from '../../src/app-config';
import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

const ME = '{ me { email roles } }';
const LOGIN = `mutation ($username: String!, $password: String!) {
  login(input: { username: $username, password: $password }) { tokens { accessToken } }
}`;

describe('ADMIN_EMAILS', () => {
  const t = useTestApp({ ADMIN_EMAILS: ' Boss@Example.com , ops@example.com' });

  /** Signs in again (the role is granted at sign-in) and reads the caller. */
  const signedIn = async (user: SeededUser) => {
    const { login } = await t.gql.data<{ login: { tokens: { accessToken: string } } }>(LOGIN, {
      username: user.email,
      password: user.password,
    });
    return t.gql.data(ME, {}, login.tokens.accessToken);
  };

  it('makes an account with a listed address an admin when it signs in once the address is verified, and nobody else', async () => {
    const boss = await t.seed.user({ email: 'boss@example.com' });
    const clerk = await t.seed.user({ email: 'clerk@example.com' });
    // Anyone may register with a listed address: until it is verified, it grants nothing.
    expect(await signedIn(boss)).toEqual({ me: { email: 'boss@example.com', roles: 'USER' } });
    for (const user of [boss, clerk]) {
      await t.seed.update(user, { emailVerified: true });
    }
    expect(await signedIn(boss)).toEqual({ me: { email: 'boss@example.com', roles: 'ADMIN' } });
    expect(await signedIn(clerk)).toEqual({ me: { email: 'clerk@example.com', roles: 'USER' } });
  });

  it('reads the list as addresses, lower-cased and trimmed', () => {
    expect(
      loadConfig({ ADMIN_EMAILS: ' Boss@Example.com ,, ops@example.com' }).adminEmails,
    ).toEqual(['boss@example.com', 'ops@example.com']);
    expect(loadConfig({}).adminEmails).toEqual([]);
  });
});
