import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startTestApp, type TestApp } from '../helpers/test-app';

const REGISTER = `mutation ($name: String!, $account: String!, $email: String!, $password: String!, $confirm: String!) {
  register(input: { name: $name, account: $account, email: $email, password: $password, passwordConfirm: $confirm }) {
    user {
      id name account email roles isActive isVerified isSuperuser bio dob phone avatarPhotoId deletedAt createdAt updatedAt
    }
  }
}`;
const LOGIN = `mutation ($username: String!, $password: String!) {
  login(input: { username: $username, password: $password }) {
    tokens { accessToken refreshToken tokenType expiresIn }
  }
}`;
const REFRESH = `mutation ($token: String!) {
  refreshToken(input: { refreshToken: $token }) { tokens { accessToken refreshToken } }
}`;
const ME = `{ me { id account } }`;

const valid = {
  name: 'Grace Hopper',
  account: 'Grace.Hopper',
  email: '  Grace@Example.COM ',
  password: 'Cobol-1959',
  confirm: 'Cobol-1959',
};

describe('registration, sign-in and tokens', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('registers a user with the public defaults, normalising email and account', async () => {
    const data = await t.gql.data<{ register: { user: Record<string, unknown> } }>(REGISTER, valid);
    expect(data.register.user).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Grace Hopper',
      account: 'grace.hopper',
      email: 'grace@example.com',
      roles: 'USER',
      isActive: true,
      isVerified: true,
      isSuperuser: false,
      bio: null,
      dob: null,
      phone: null,
      avatarPhotoId: null,
      deletedAt: null,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
  });

  it('refuses an email or account already taken, whatever its case', async () => {
    const email = await t.gql.error(REGISTER, {
      ...valid,
      account: 'someone.else',
      email: 'GRACE@example.com',
    });
    expect(email.extensions).toMatchObject({
      code: 'CONFLICT',
      reason: 'EMAIL_ALREADY_REGISTERED',
    });
    const account = await t.gql.error(REGISTER, {
      ...valid,
      account: 'GRACE.HOPPER',
      email: 'other@example.com',
    });
    expect(account.extensions).toMatchObject({
      code: 'CONFLICT',
      reason: 'ACCOUNT_NAME_ALREADY_TAKEN',
    });
  });

  it('reports every bad field with its reason', async () => {
    const error = await t.gql.error(REGISTER, {
      name: ' short ',
      account: 'a b',
      email: 'not-an-email',
      password: 'short',
      confirm: 'different',
    });
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
      fields: {
        name: 'TOO_SHORT',
        account: 'INVALID_FORMAT',
        email: 'INVALID_EMAIL',
        password: 'TOO_SHORT',
        passwordConfirm: 'MISMATCH',
      },
    });
  });

  it('applies the length limits at and beyond their bounds', async () => {
    const at = await t.gql.data<{ register: { user: { name: string } } }>(REGISTER, {
      ...valid,
      name: 'x'.repeat(40),
      account: 'abc',
      email: 'bounds@example.com',
      password: 'p'.repeat(128),
      confirm: 'p'.repeat(128),
    });
    expect(at.register.user.name).toHaveLength(40);
    const beyond = await t.gql.error(REGISTER, {
      ...valid,
      name: 'x'.repeat(41),
      account: 'a'.repeat(33),
      email: `${'e'.repeat(250)}@example.com`,
      password: 'p'.repeat(129),
      confirm: 'p'.repeat(129),
    });
    expect(beyond.extensions?.fields).toEqual({
      name: 'TOO_LONG',
      account: 'TOO_LONG',
      email: 'TOO_LONG',
      password: 'TOO_LONG',
    });
  });

  it('signs in with email or account and the exact password', async () => {
    const byEmail = await t.gql.data<{ login: { tokens: Record<string, unknown> } }>(LOGIN, {
      username: 'grace@example.com',
      password: valid.password,
    });
    expect(byEmail.login.tokens).toEqual({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      tokenType: 'bearer',
      expiresIn: 3600,
    });
    const byAccount = await t.gql.data<{ login: { tokens: { accessToken: string } } }>(LOGIN, {
      username: 'grace.hopper',
      password: valid.password,
    });
    const me = await t.gql.data<{ me: { account: string } }>(
      ME,
      {},
      byAccount.login.tokens.accessToken,
    );
    expect(me.me.account).toBe('grace.hopper');
  });

  it('fails sign-in the same way for a wrong password and an unknown email', async () => {
    const wrong = await t.gql.error(LOGIN, {
      username: 'grace@example.com',
      password: 'cobol-1959',
    });
    const unknown = await t.gql.error(LOGIN, {
      username: 'nobody@example.com',
      password: 'Cobol-1959',
    });
    expect(wrong).toEqual(unknown);
    expect(wrong.extensions).toEqual({
      code: 'UNAUTHENTICATED',
      reason: 'INCORRECT_EMAIL_OR_PASSWORD',
    });
  });

  it('trades a refresh token for new tokens, but never an access token', async () => {
    const tokens = await t.gql.data<{
      login: { tokens: { accessToken: string; refreshToken: string } };
    }>(LOGIN, {
      username: 'grace@example.com',
      password: valid.password,
    });
    const refreshed = await t.gql.data<{ refreshToken: { tokens: { accessToken: string } } }>(
      REFRESH,
      {
        token: tokens.login.tokens.refreshToken,
      },
    );
    await expect(
      t.gql.data(ME, {}, refreshed.refreshToken.tokens.accessToken),
    ).resolves.toBeTruthy();
    const misuse = await t.gql.error(REFRESH, { token: tokens.login.tokens.accessToken });
    expect(misuse.extensions).toMatchObject({ reason: 'INVALID_TOKEN' });
    const asAccess = await t.gql.error(ME, {}, tokens.login.tokens.refreshToken);
    expect(asAccess.extensions).toMatchObject({ reason: 'INVALID_TOKEN' });
  });

  it('tells a missing token from an invalid one', async () => {
    expect((await t.gql.error(ME)).extensions).toEqual({
      code: 'UNAUTHENTICATED',
      reason: 'NOT_AUTHENTICATED',
    });
    expect((await t.gql.error(ME, {}, 'not.a.jwt')).extensions).toMatchObject({
      reason: 'INVALID_TOKEN',
    });
  });

  it('refuses a token whose user became inactive', async () => {
    const user = await t.seed.user();
    await t.seed.update(user, { isActive: false });
    expect((await t.gql.error(ME, {}, user.token)).extensions).toMatchObject({
      reason: 'INVALID_TOKEN',
    });
  });

  it('publishes its signing keys and authorization server metadata', async () => {
    const jwks = (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as {
      keys: Array<Record<string, string>>;
    };
    expect(jwks.keys).toEqual([
      expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' }),
    ]);
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const metadata = (await (
      await fetch(`${t.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: expect.any(String),
      token_endpoint: expect.stringMatching(/\/api\/v1\/auth\/token$/),
      jwks_uri: expect.stringMatching(/\/\.well-known\/jwks\.json$/),
      grant_types_supported: ['password', 'refresh_token'],
    });
  });
});

describe('tokens from a trusted external issuer', () => {
  const issuer = 'https://idp.example.test';
  let t: TestApp;
  let jwksServer: Server;
  let sign: (
    claims: Record<string, unknown>,
    options?: { audience?: string; expiresIn?: string },
  ) => Promise<string>;

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'idp-key', alg: 'RS256', use: 'sig' };
    jwksServer = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    const { port } = jwksServer.address() as AddressInfo;
    t = await startTestApp({
      OAUTH_EXTERNAL_ISSUER: issuer,
      OAUTH_EXTERNAL_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`,
      OAUTH_EXTERNAL_AUDIENCE: 'meeting-api',
    });
    sign = (claims, options = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'idp-key' })
        .setIssuer(issuer)
        .setAudience(options.audience ?? 'meeting-api')
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m')
        .sign(privateKey);
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => jwksServer.close(resolve));
  });

  it('accepts a token naming a user by id or by email', async () => {
    const user = await t.seed.user();
    const bySub = await sign({ sub: user.id });
    expect((await t.gql.data<{ me: { id: string } }>(ME, {}, bySub)).me.id).toBe(user.id);
    const byEmail = await sign({ sub: 'external-subject-42', email: user.email.toUpperCase() });
    expect((await t.gql.data<{ me: { id: string } }>(ME, {}, byEmail)).me.id).toBe(user.id);
  });

  it('refuses an external token for another audience, expired, or naming no known user', async () => {
    const user = await t.seed.user();
    for (const token of [
      await sign({ sub: user.id }, { audience: 'someone-else' }),
      await sign({ sub: user.id }, { expiresIn: '-1m' }),
      await sign({ sub: 'nobody', email: 'ghost@example.com' }),
    ]) {
      expect((await t.gql.error(ME, {}, token)).extensions).toMatchObject({
        reason: 'INVALID_TOKEN',
      });
    }
  });
});
