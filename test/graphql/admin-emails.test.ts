import { loadConfig } from '../../src/config';
import { startTestApp, type TestApp } from '../helpers/test-app';

const ME = '{ me { email roles } }';

describe('ADMIN_EMAILS', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAILS: ' Boss@Example.com , ops@example.com' });
  });
  afterAll(() => t.close());

  it('makes an account with a listed address an admin when it signs in, and nobody else', async () => {
    const boss = await t.seed.user({ email: 'boss@example.com' });
    const clerk = await t.seed.user({ email: 'clerk@example.com' });
    expect(await t.gql.data(ME, {}, boss.token)).toEqual({
      me: { email: 'boss@example.com', roles: 'ADMIN' },
    });
    expect(await t.gql.data(ME, {}, clerk.token)).toEqual({
      me: { email: 'clerk@example.com', roles: 'USER' },
    });
  });

  it('reads the list as addresses, lower-cased and trimmed', () => {
    expect(
      loadConfig({ ADMIN_EMAILS: ' Boss@Example.com ,, ops@example.com' }).adminEmails,
    ).toEqual(['boss@example.com', 'ops@example.com']);
    expect(loadConfig({}).adminEmails).toEqual([]);
  });
});
