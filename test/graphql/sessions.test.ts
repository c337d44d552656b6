import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { loadSigningKey, type SigningKey } from '../../src/platform/auth/keys';
import { TokenService } from '../../src/platform/auth/tokens';
import { DEFAULT_JWT_SECRET } from '../../src/platform/auth/auth.settings';
import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

const LOGIN = `mutation ($username: String!, $password: String!) {
  login(input: { username: $username, password: $password }) { tokens { accessToken refreshToken } }
}`;
const REFRESH = `mutation ($token: String!) {
  refreshToken(input: { refreshToken: $token }) {
    tokens { accessToken refreshToken tokenType expiresIn }
  }
}`;
const LOGOUT = `mutation ($token: String!) { logout(input: { refreshToken: $token }) { sessionEnded } }`;
const ME = '{ me { id } }';

interface Pair {
  accessToken: string;
  refreshToken: string;
}

const t = useTestApp();
const { rest } = t;
let key: SigningKey;
let defaultTokens: TokenService;

/** The app's token service with another reuse interval (0: strict rotation). */
function useReuseInterval(seconds: number | null): void {
  t.instance.deps.tokens =
    seconds === null
      ? defaultTokens
      : new TokenService(key, { ...defaultTokens.settings, refreshReuseInterval: seconds });
}

const login = async (user: SeededUser): Promise<Pair> =>
  (
    await t.gql.data<{ login: { tokens: Pair } }>(LOGIN, {
      username: user.email,
      password: user.password,
    })
  ).login.tokens;

/** The token endpoint's answer to a refresh grant: the status, and the new pair when it is 200. */
async function trade(refreshToken: string): Promise<{ status: number; pair: Pair | null }> {
  const response = await rest.post<{ access_token: string; refresh_token: string }>('/auth/token', {
    form: { grant_type: 'refresh_token', refresh_token: refreshToken },
  });
  return {
    status: response.status,
    pair:
      response.status === 200
        ? { accessToken: response.body.access_token, refreshToken: response.body.refresh_token }
        : null,
  };
}

async function expectRefused(refreshToken: string): Promise<void> {
  const response = await rest.post('/auth/token', {
    form: { grant_type: 'refresh_token', refresh_token: refreshToken },
  });
  expect({ status: response.status, body: response.body }).toEqual({
    status: 400,
    body: { error: 'invalid_grant', error_description: expect.any(String) },
  });
  const error = await t.gql.error(REFRESH, { token: refreshToken });
  expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'INVALID_TOKEN' });
}

beforeAll(async () => {
  key = await loadSigningKey({ privateKeyPem: null, secret: DEFAULT_JWT_SECRET });
  defaultTokens = t.instance.deps.tokens;
});
afterEach(() => useReuseInterval(null));

describe('refresh token rotation', () => {
  it('answers a new pair for each use, with a refresh token different from the one traded', async () => {
    const user = await t.seed.user();
    const first = await login(user);
    const second = (
      await t.gql.data<{ refreshToken: { tokens: Pair } }>(REFRESH, { token: first.refreshToken })
    ).refreshToken.tokens;
    expect(second).toEqual({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      tokenType: 'bearer',
      expiresIn: 3600,
    });
    expect(second.refreshToken).not.toBe(first.refreshToken);
    const me = await t.gql.data<{ me: { id: string } }>(ME, {}, second.accessToken);
    expect(me.me.id).toBe(user.id);
    expect((await trade(second.refreshToken)).status).toBe(200);
  });

  it('lets a retired token be traded again within the reuse interval (a client retrying)', async () => {
    const first = await login(await t.seed.user());
    const used = await trade(first.refreshToken);
    const retried = await trade(first.refreshToken);
    expect([used.status, retried.status]).toEqual([200, 200]);
    // Both successors belong to the live family.
    expect((await trade(used.pair?.refreshToken ?? '')).status).toBe(200);
    expect((await trade(retried.pair?.refreshToken ?? '')).status).toBe(200);
  });

  it('revokes the whole family when a retired token comes back after the reuse interval', async () => {
    useReuseInterval(1);
    const first = await login(await t.seed.user());
    const second = await trade(first.refreshToken);
    expect((await trade(first.refreshToken)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expectRefused(first.refreshToken);
    await expectRefused(second.pair?.refreshToken ?? '');
  });

  describe('with strict rotation (no reuse interval)', () => {
    beforeEach(() => useReuseInterval(0));

    it('refuses a retired token with invalid_grant and revokes every token of its family', async () => {
      const user = await t.seed.user();
      const first = await login(user);
      const other = await login(user);
      const second = await trade(first.refreshToken);
      const third = await trade(second.pair?.refreshToken ?? '');
      expect([second.status, third.status]).toEqual([200, 200]);
      await expectRefused(first.refreshToken);
      await expectRefused(third.pair?.refreshToken ?? '');
      // Another sign-in of the same user is another family, and its access tokens live on; the
      // revoked family's access tokens are refused with it.
      expect((await trade(other.refreshToken)).status).toBe(200);
      const me = await t.gql.data<{ me: { id: string } }>(ME, {}, other.accessToken);
      expect(me.me.id).toBe(user.id);
      for (const token of [first.accessToken, third.pair?.accessToken]) {
        expect((await t.gql.error(ME, {}, token)).extensions).toEqual({
          code: 'UNAUTHENTICATED',
          reason: 'INVALID_TOKEN',
        });
      }
    });

    it('of two concurrent uses of one token exactly one succeeds, and the family is revoked', async () => {
      for (let round = 0; round < 5; round += 1) {
        const first = await login(await t.seed.user());
        const outcomes = await Promise.all([
          trade(first.refreshToken),
          trade(first.refreshToken),
          trade(first.refreshToken),
        ]);
        const statuses = outcomes.map((outcome) => outcome.status).sort();
        expect(statuses).toEqual([200, 400, 400]);
        const winner = outcomes.find((outcome) => outcome.pair)?.pair;
        // RFC 9700 §4.14.2: the server cannot tell which party is the legitimate one.
        await expectRefused(winner?.refreshToken ?? '');
      }
    });

    it('rotates a token signed before refresh tokens were recorded, once', async () => {
      const user = await t.seed.user();
      const now = Math.floor(Date.now() / 1000);
      const legacy = await new SignJWT({})
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'refresh+jwt' })
        .setIssuer(defaultTokens.settings.issuer)
        .setAudience(defaultTokens.settings.issuer)
        .setSubject(user.id)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .setJti(randomUUID())
        .sign(key.privateKey);
      const traded = await trade(legacy);
      expect(traded.status).toBe(200);
      await expectRefused(legacy);
      await expectRefused(traded.pair?.refreshToken ?? '');
    });
  });
});

describe('logout', () => {
  it("revokes the presented token's family, and only that one", async () => {
    const user = await t.seed.user();
    const first = await login(user);
    const other = await login(user);
    const second = await trade(first.refreshToken);
    const ended = await t.gql.data<{ logout: { sessionEnded: boolean } }>(LOGOUT, {
      token: first.refreshToken,
    });
    expect(ended.logout).toEqual({ sessionEnded: true });
    await expectRefused(first.refreshToken);
    await expectRefused(second.pair?.refreshToken ?? '');
    expect((await trade(other.refreshToken)).status).toBe(200);
    // The ended session's access tokens are refused with it; the other session's live on.
    for (const token of [first.accessToken, second.pair?.accessToken]) {
      expect((await t.gql.error(ME, {}, token)).extensions).toEqual({
        code: 'UNAUTHENTICATED',
        reason: 'INVALID_TOKEN',
      });
    }
    expect((await t.gql.data<{ me: { id: string } }>(ME, {}, other.accessToken)).me.id).toBe(
      user.id,
    );
  });

  it('answers sessionEnded false for a session already ended', async () => {
    const first = await login(await t.seed.user());
    await t.gql.data(LOGOUT, { token: first.refreshToken });
    const again = await t.gql.data<{ logout: { sessionEnded: boolean } }>(LOGOUT, {
      token: first.refreshToken,
    });
    expect(again.logout).toEqual({ sessionEnded: false });
  });

  it('refuses a token that is not a refresh token of this service as UNAUTHENTICATED', async () => {
    const first = await login(await t.seed.user());
    for (const token of [first.accessToken, 'not-a-token', `${first.refreshToken}x`]) {
      const error = await t.gql.error(LOGOUT, { token });
      expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'INVALID_TOKEN' });
    }
  });

  it('refuses an empty token as a bad input', async () => {
    const error = await t.gql.error(LOGOUT, { token: ' ' });
    expect(error.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { refreshToken: 'REQUIRED' },
    });
  });
});

describe('expired refresh tokens', () => {
  it('are deleted by later sign-ins', async () => {
    const user = await t.seed.user();
    const em = t.instance.database.orm.em.fork();
    const id = randomUUID();
    await em.execute(
      `insert into "refresh_tokens" ("id", "family_id", "user_id", "expires_at") ` +
        `values (?, ?, ?, now() - interval '1 minute')`,
      [id, randomUUID(), user.id],
    );
    await login(user);
    const rows = await em.execute(`select "id" from "refresh_tokens" where "id" = ?`, [id]);
    expect(rows).toEqual([]);
  });
});
