import { decodeJwt } from 'jose';
import { Client } from 'pg';
import { DEFAULT_ISSUER } from '../../src/platform/auth/auth.settings';
import { LISTENER_APPLICATION_NAME } from '../../src/platform/live/notice-listener';
import {
  type Closed,
  type LiveClient,
  useLiveClients,
  waitForSubscriptions,
} from '../helpers/live-client';
import { RestClient } from '../helpers/rest-client';
import type { SeededUser } from '../helpers/seed';
import { EventStreamClient } from '../helpers/sse-client';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { startTestApp, type TestApp } from '../helpers/test-app';

/*
 * Sessions end when they are ended (docs/rest-contract.md §7): logout, a password change,
 * deactivation and refresh-token reuse end the session's access tokens, refused within a second on
 * every instance, and close its open subscriptions (WebSocket and event stream) with 4403. Two
 * instances, on different ports, share one database and one signing secret.
 */

const LOGIN = `mutation ($username: String!, $password: String!) {
  login(input: { username: $username, password: $password }) { tokens { accessToken refreshToken } }
}`;
const LOGOUT = `mutation ($token: String!) { logout(input: { refreshToken: $token }) { sessionEnded } }`;
const CHANGE_PASSWORD = `mutation ($input: ChangePasswordInput!) {
  changePassword(input: $input) { tokens { accessToken refreshToken } }
}`;
const INVITATIONS = 'subscription { invitationReceived { id } }';
const ME = '{ me { id } }';

/** The contract's second, and a margin for a loaded test machine. */
const WITHIN_MS = 1_500;

interface Pair {
  accessToken: string;
  refreshToken: string;
}

/** What `promise` settles to, or 'timed out' if it has not within `ms`. */
async function within<T>(promise: Promise<T>, ms = WITHIN_MS): Promise<T | 'timed out'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('sessions that end, on every instance', () => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  const connect = useLiveClients();
  const streams: EventStreamClient[] = [];

  const login = async (on: TestApp, user: SeededUser, password = user.password): Promise<Pair> =>
    (await on.gql.data<{ login: { tokens: Pair } }>(LOGIN, { username: user.email, password }))
      .login.tokens;

  const stream = (on: TestApp, token: string): Promise<EventStreamClient> => {
    const client = new EventStreamClient();
    streams.push(client);
    return client.open(on.url, token, INVITATIONS);
  };

  /** A socket and an event stream of `token` on each instance, each running one subscription. */
  async function subscribeEverywhere(
    token: string,
  ): Promise<{ sockets: LiveClient[]; streams: EventStreamClient[] }> {
    const sockets = [connect(a.url, token), connect(b.url, token)];
    for (const socket of sockets) {
      expect(await socket.acknowledged).toBe(true);
      socket.subscribe(INVITATIONS);
    }
    const opened = [await stream(a, token), await stream(b, token)];
    expect(opened.map((client) => client.status)).toEqual([200, 200]);
    await waitForSubscriptions(a.instance, 2);
    await waitForSubscriptions(b.instance, 2);
    return { sockets, streams: opened };
  }

  /** Every socket closed with 4403 and every stream ended, each within a second. */
  async function expectClosed(live: {
    sockets: LiveClient[];
    streams: EventStreamClient[];
  }): Promise<void> {
    const closed = await Promise.all(live.sockets.map((socket) => within(socket.closed)));
    expect(closed).toEqual(live.sockets.map((): Closed => ({ code: 4403, reason: 'Forbidden' })));
    const ended = await Promise.all(live.streams.map((client) => within(client.ended)));
    expect(ended).toEqual(live.streams.map(() => undefined));
  }

  /** `token` refused on both instances, over REST exactly as a malformed token is. */
  async function expectRefused(token: string): Promise<void> {
    for (const on of [a, b]) {
      const rest = new RestClient(on.url);
      const [refused, malformed] = [
        await rest.get('/user/me', { token }),
        await rest.get('/user/me', { token: 'not.a.token' }),
      ];
      expect({ status: refused.status, text: refused.text }).toEqual({
        status: 401,
        text: malformed.text,
      });
      expect(refused.headers.get('www-authenticate')).toBe(
        malformed.headers.get('www-authenticate'),
      );
      expect((await on.gql.error(ME, {}, token)).extensions).toEqual({
        code: 'UNAUTHENTICATED',
        reason: 'INVALID_TOKEN',
      });
    }
  }

  async function expectAccepted(token: string, user: SeededUser): Promise<void> {
    for (const on of [a, b]) {
      const me = await new RestClient(on.url).get<{ id: string }>('/user/me', { token });
      expect({ status: me.status, id: me.body.id }).toEqual({ status: 200, id: user.id });
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    // Strict rotation, so that a refresh token traded twice is reuse at once.
    const env = { REFRESH_TOKEN_REUSE_INTERVAL: '0' };
    a = await startTestApp(env, { database: database.config });
    b = await startTestApp(env, { database: database.config });
  });
  afterEach(() => {
    streams.splice(0).forEach((client) => client.close());
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.drop();
  });

  it('runs the two instances on different ports, each accepting the tokens the other signs', async () => {
    expect(new URL(a.url).port).not.toBe(new URL(b.url).port);
    const user = await a.seed.user();
    const fromA = await login(a, user);
    const fromB = await login(b, user);
    expect(decodeJwt(fromA.accessToken)).toMatchObject({ iss: DEFAULT_ISSUER });
    await expectAccepted(fromA.accessToken, user);
    await expectAccepted(fromB.accessToken, user);
    // A refresh token signed by one instance is traded on the other.
    const traded = await new RestClient(b.url).post('/auth/token', {
      form: { grant_type: 'refresh_token', refresh_token: fromA.refreshToken },
    });
    expect(traded.status).toBe(200);
    for (const on of [a, b]) {
      const metadata = (await (
        await fetch(`${on.url}/.well-known/oauth-authorization-server`)
      ).json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({
        issuer: DEFAULT_ISSUER,
        token_endpoint: `${on.url}/api/v1/auth/token`,
        jwks_uri: `${on.url}/.well-known/jwks.json`,
      });
    }
  });

  it("carries the session in the access token's sid: the family of its refresh token", async () => {
    const pair = await login(a, await a.seed.user());
    expect(decodeJwt(pair.accessToken)['sid']).toBe(decodeJwt(pair.refreshToken)['fam']);
    expect(decodeJwt(pair.accessToken)['sid']).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
  });

  it("logout ends that session's access tokens and subscriptions on both instances, and only that session's", async () => {
    const user = await a.seed.user();
    const ending = await login(a, user);
    const staying = await login(a, user);
    const live = await subscribeEverywhere(ending.accessToken);
    const other = connect(b.url, staying.accessToken);
    expect(await other.acknowledged).toBe(true);
    other.subscribe(INVITATIONS);
    await waitForSubscriptions(b.instance, 3);

    const ended = await a.gql.data<{ logout: { sessionEnded: boolean } }>(LOGOUT, {
      token: ending.refreshToken,
    });
    expect(ended.logout).toEqual({ sessionEnded: true });

    await expectClosed(live);
    await expectRefused(ending.accessToken);
    await expectAccepted(staying.accessToken, user);
    expect(await within(other.closed, 300)).toBe('timed out');
  });

  it("a password change ends every session's access tokens and subscriptions on both instances; the new one works", async () => {
    const user = await a.seed.user();
    const first = await login(a, user);
    const second = await login(b, user);
    const live = await subscribeEverywhere(first.accessToken);
    const changed = await b.gql.data<{ changePassword: { tokens: Pair } }>(
      CHANGE_PASSWORD,
      { input: { currentPassword: user.password, newPassword: 'another passphrase' } },
      second.accessToken,
    );

    await expectClosed(live);
    await expectRefused(first.accessToken);
    await expectRefused(second.accessToken);
    await expectAccepted(changed.changePassword.tokens.accessToken, user);
    const socket = connect(a.url, changed.changePassword.tokens.accessToken);
    expect(await socket.acknowledged).toBe(true);
  });

  it("refresh-token reuse ends the session's access tokens and subscriptions on both instances", async () => {
    const user = await a.seed.user();
    const first = await login(a, user);
    const rest = new RestClient(b.url);
    const trade = (refreshToken: string) =>
      rest.post<{ access_token: string }>('/auth/token', {
        form: { grant_type: 'refresh_token', refresh_token: refreshToken },
      });
    const successor = await trade(first.refreshToken);
    expect(successor.status).toBe(200);
    const live = await subscribeEverywhere(successor.body.access_token);

    // The retired token again: reuse, so the whole family (this session) is revoked.
    expect((await trade(first.refreshToken)).status).toBe(400);

    await expectClosed(live);
    await expectRefused(first.accessToken);
    await expectRefused(successor.body.access_token);
  });

  it("deactivating a user ends their sessions' subscriptions on both instances at once, with no event", async () => {
    const user = await a.seed.user();
    const pair = await login(a, user);
    const live = await subscribeEverywhere(pair.accessToken);
    await a.seed.update(user, { isActive: false });

    await expectClosed(live);
    await expectRefused(pair.accessToken);
    // Ended, not suspended: reactivated, the user signs in again.
    await a.seed.update(user, { isActive: true });
    await expectRefused(pair.accessToken);
    const refreshed = await new RestClient(a.url).post('/auth/token', {
      form: { grant_type: 'refresh_token', refresh_token: pair.refreshToken },
    });
    expect(refreshed.status).toBe(400);
    await expectAccepted((await login(b, user)).accessToken, user);
  });

  it('checks every open connection again when the listener is back, as notices sent while it was away are lost', async () => {
    const user = await a.seed.user();
    const pair = await login(a, user);
    const socket = connect(b.url, pair.accessToken);
    expect(await socket.acknowledged).toBe(true);
    socket.subscribe(INVITATIONS);
    await waitForSubscriptions(b.instance, 1);
    const admin = new Client({ connectionString: a.instance.database.url });
    await admin.connect();
    try {
      // Revoked by a statement that sends no notice: what a listener away at the time misses.
      await admin.query('update "refresh_tokens" set "revoked_at" = now() where "family_id" = $1', [
        decodeJwt(pair.accessToken)['sid'],
      ]);
      expect(await within(socket.closed, 500)).toBe('timed out');
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity ' +
          'where application_name = $1 and datname = current_database()',
        [LISTENER_APPLICATION_NAME],
      );
    } finally {
      await admin.end();
    }
    // The listener reconnects within its first backoff (100 ms), then checks.
    expect(await within(socket.closed, 5_000)).toEqual({ code: 4403, reason: 'Forbidden' });
  });
});
