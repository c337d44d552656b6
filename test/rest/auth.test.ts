import { randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { loadSigningKey } from '../../src/platform/auth/keys';
import { DEFAULT_JWT_SECRET } from '../../src/platform/auth/auth.settings';
import { useTestApp } from '../helpers/use-test-app';
import {
  expectAnswer,
  expectInvalidToken,
  expectNotAuthenticated,
  keysOf,
  type RestUser,
  signUpViaRest,
  sortedKeys,
  TOKEN_RESPONSE_KEYS,
  UNKNOWN_ID,
  type WireTokens,
  type WireUser,
} from './rest-fixtures';

const tokenResponse = {
  access_token: expect.any(String),
  refresh_token: expect.any(String),
  token_type: 'bearer',
  expires_in: 3600,
};

const oauthError = (error: string) => ({ error, error_description: expect.any(String) });

const t = useTestApp();
const { rest } = t;

describe('sign-in and the token endpoint', () => {
  let grace: RestUser;

  beforeAll(async () => {
    grace = await signUpViaRest(rest, {
      account: 'grace.hopper',
      email: 'grace@example.com',
      password: 'Cobol-1959',
      password_confirm: 'Cobol-1959',
    });
  });

  const meWith = (token: string) => rest.get<WireUser>('/user/me', { token });

  describe('POST /api/v1/auth/login', () => {
    it('signs in with a JSON email and password and answers the token pair', async () => {
      const response = await rest.post<WireTokens>('/auth/login', {
        json: { email: 'grace@example.com', password: 'Cobol-1959' },
      });
      expectAnswer(response, 200, tokenResponse);
      expect(keysOf(response.body)).toEqual(sortedKeys(TOKEN_RESPONSE_KEYS));
      expect((await meWith(response.body.access_token)).body.id).toBe(grace.user.id);
    });

    it('accepts the same fields form-encoded, with the email in any case', async () => {
      const response = await rest.post<WireTokens>('/auth/login', {
        form: { email: ' GRACE@example.com ', password: 'Cobol-1959' },
      });
      expectAnswer(response, 200, tokenResponse);
    });

    it('fails the same way for a wrong password, a wrongly cased password and an unknown email', async () => {
      for (const credentials of [
        { email: 'grace@example.com', password: 'Cobol-1960' },
        { email: 'grace@example.com', password: 'cobol-1959' },
        { email: 'nobody@example.com', password: 'Cobol-1959' },
      ]) {
        const response = await rest.post('/auth/login', { json: credentials });
        expectAnswer(response, 401, { errors: 'INCORRECT_EMAIL_OR_PASSWORD' });
      }
    });

    it('reports missing credentials by the names the client uses', async () => {
      const response = await rest.post('/auth/login', { json: {} });
      expectAnswer(response, 422, {
        errors: { email: 'VALIDATION_EMAIL_REQUIRED', password: 'VALIDATION_PASSWORD_REQUIRED' },
      });
    });
  });

  describe('POST /api/v1/auth/token', () => {
    it('grants tokens for a form-encoded password grant naming the user by email', async () => {
      const response = await rest.post<WireTokens>('/auth/token', {
        form: { grant_type: 'password', username: 'grace@example.com', password: 'Cobol-1959' },
      });
      expectAnswer(response, 200, tokenResponse);
      expect(keysOf(response.body)).toEqual(sortedKeys(TOKEN_RESPONSE_KEYS));
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect((await meWith(response.body.access_token)).body.id).toBe(grace.user.id);
    });

    it('grants tokens for a password grant naming the user by account', async () => {
      const response = await rest.post<WireTokens>('/auth/token', {
        form: { grant_type: 'password', username: 'Grace.Hopper', password: 'Cobol-1959' },
      });
      expectAnswer(response, 200, tokenResponse);
      expect((await meWith(response.body.access_token)).body.account).toBe('grace.hopper');
    });

    it('answers a failed password grant with the RFC 6749 invalid_grant error', async () => {
      const response = await rest.post('/auth/token', {
        form: { grant_type: 'password', username: 'grace@example.com', password: 'wrong-one' },
      });
      expectAnswer(response, 400, oauthError('invalid_grant'));
      expect(response.headers.get('cache-control')).toBe('no-store');
    });

    it('trades a form-encoded refresh_token grant for a new working pair', async () => {
      const response = await rest.post<WireTokens>('/auth/token', {
        form: { grant_type: 'refresh_token', refresh_token: grace.refreshToken },
      });
      expectAnswer(response, 200, tokenResponse);
      expect((await meWith(response.body.access_token)).body.id).toBe(grace.user.id);
    });

    it('trades a legacy JSON {refresh_token} body for a new working pair', async () => {
      const response = await rest.post<WireTokens>('/auth/token', {
        json: { refresh_token: grace.refreshToken },
      });
      expectAnswer(response, 200, tokenResponse);
      expect((await meWith(response.body.access_token)).body.id).toBe(grace.user.id);
    });

    it('refuses an access token offered as a refresh token', async () => {
      const response = await rest.post('/auth/token', {
        form: { grant_type: 'refresh_token', refresh_token: grace.token },
      });
      expectAnswer(response, 400, oauthError('invalid_grant'));
    });

    it('refuses an unsupported grant type with unsupported_grant_type', async () => {
      const response = await rest.post('/auth/token', {
        form: { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' },
      });
      expectAnswer(response, 400, oauthError('unsupported_grant_type'));
    });

    it('answers malformed JSON in the RFC 6749 shape too', async () => {
      const broken = await rest.post('/auth/token', {
        raw: '{"grant_type": "password",',
        contentType: 'application/json',
      });
      expectAnswer(broken, 400, oauthError('invalid_request'));
    });

    it('answers an oversized body in the RFC 6749 shape too', async () => {
      const huge = await rest.post('/auth/token', {
        form: { grant_type: 'password', username: 'x'.repeat(1024 * 1024 + 1), password: 'p' },
      });
      expect({ clientError: huge.status >= 400 && huge.status < 500, body: huge.body }).toEqual({
        clientError: true,
        body: oauthError('invalid_request'),
      });
    });

    it('answers a body of an unsupported media type in the RFC 6749 shape too', async () => {
      const text = await rest.post('/auth/token', {
        raw: 'grant_type=password',
        contentType: 'text/plain',
      });
      expect({ clientError: text.status >= 400 && text.status < 500, body: text.body }).toEqual({
        clientError: true,
        body: oauthError('invalid_request'),
      });
    });

    it('refuses a request without a grant or without a required parameter as invalid_request', async () => {
      expectAnswer(
        await rest.post('/auth/token', { form: {} }),
        400,
        oauthError('invalid_request'),
      );
      expectAnswer(
        await rest.post('/auth/token', {
          form: { grant_type: 'password', username: 'grace@example.com' },
        }),
        400,
        oauthError('invalid_request'),
      );
    });
  });
});

describe('bearer authentication', () => {
  let user: RestUser;
  let sign: (options: {
    subject?: string;
    audience?: string;
    expiresIn?: string;
    typ?: string;
    foreignKey?: boolean;
  }) => Promise<string>;

  beforeAll(async () => {
    user = await signUpViaRest(rest);
    const own = await loadSigningKey({ privateKeyPem: null, secret: DEFAULT_JWT_SECRET });
    const foreign = await generateKeyPair('EdDSA');
    const { issuer, audience } = t.instance.deps.tokens.settings;
    sign = (options) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'EdDSA', kid: own.kid, typ: options.typ ?? 'at+jwt' })
        .setIssuer(issuer)
        .setSubject(options.subject ?? user.user.id)
        .setAudience(options.audience ?? audience)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m')
        .setJti(randomUUID())
        .sign(options.foreignKey ? foreign.privateKey : own.privateKey);
  });

  /** Every endpoint that needs a token, with a path that would otherwise be valid. */
  const protectedRequests = (): Array<[string, string]> => [
    ['GET', '/user/me'],
    ['GET', '/user/search?q=rest'],
    ['GET', `/user/${user.user.account}`],
    ['GET', '/follow/following'],
    ['GET', '/follow/me/following'],
    ['GET', '/follow/followers'],
    ['GET', '/follow/me/followers'],
    ['GET', `/follow/status/${UNKNOWN_ID}`],
    ['POST', `/follow/follow/${UNKNOWN_ID}`],
    ['POST', `/follow/${UNKNOWN_ID}/add`],
    ['POST', `/follow/unfollow/${UNKNOWN_ID}`],
    ['POST', `/follow/${UNKNOWN_ID}/remove`],
    ['POST', '/meeting/create'],
    ['GET', '/meeting/index'],
    ['GET', '/meeting/requests'],
    ['GET', `/meeting/${UNKNOWN_ID}`],
    ['POST', `/meeting/${UNKNOWN_ID}/participants/add`],
    ['POST', `/meeting/${UNKNOWN_ID}/approve`],
    ['POST', `/meeting/${UNKNOWN_ID}/decline`],
  ];

  const call = (method: string, path: string, headers: Record<string, string>) =>
    fetch(`${rest.base}${path}`, { method, headers }).then(async (response) => ({
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as unknown,
      text: '',
    }));

  it('answers 401 NOT_AUTHENTICATED with the Bearer challenge on every protected endpoint without a token', async () => {
    for (const [method, path] of protectedRequests()) {
      const response = await call(method, path, {});
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 401 });
      expectNotAuthenticated(response);
    }
  });

  it('answers 401 INVALID_TOKEN with error="invalid_token" on every protected endpoint for a bad token', async () => {
    for (const [method, path] of protectedRequests()) {
      const response = await call(method, path, { authorization: 'Bearer not.a.jwt' });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 401 });
      expectInvalidToken(response);
    }
  });

  it('treats another authorization scheme as no token', async () => {
    for (const header of ['Basic dXNlcjpwYXNz', `Token ${user.token}`, user.token]) {
      expectNotAuthenticated(await rest.get('/user/me', { headers: { authorization: header } }));
    }
  });

  it('accepts the scheme name in any case', async () => {
    const response = await rest.get<WireUser>('/user/me', {
      headers: { authorization: `bearer ${user.token}` },
    });
    expect(response.status).toBe(200);
  });

  it('refuses expired, wrongly signed, wrong-audience and refresh tokens as INVALID_TOKEN', async () => {
    expect((await rest.get('/user/me', { token: await sign({}) })).status).toBe(200);
    for (const token of [
      await sign({ expiresIn: '-1m' }),
      await sign({ foreignKey: true }),
      await sign({ audience: 'another-api' }),
      await sign({ typ: 'refresh+jwt' }),
      user.refreshToken,
      `${user.token}x`,
    ]) {
      expectInvalidToken(await rest.get('/user/me', { token }));
    }
  });

  it('refuses a token whose user does not exist, is inactive or is deleted', async () => {
    expectInvalidToken(await rest.get('/user/me', { token: await sign({ subject: UNKNOWN_ID }) }));
    const inactive = await t.seed.user();
    await t.seed.update(inactive, { isActive: false });
    expectInvalidToken(await rest.get('/user/me', { token: inactive.token }));
    const deleted = await t.seed.user();
    await t.seed.update(deleted, { deletedAt: '2026-01-01' });
    expectInvalidToken(await rest.get('/user/me', { token: deleted.token }));
  });

  it('answers liveness under /api/v1 with 204 and an empty body', async () => {
    const response = await rest.get('/health/liveness');
    expect({ status: response.status, text: response.text }).toEqual({ status: 204, text: '' });
  });

  it('answers readiness under /api/v1 with 204 while the database answers', async () => {
    const response = await rest.get('/health/readiness');
    expect({ status: response.status, text: response.text }).toEqual({ status: 204, text: '' });
  });

  it('needs no token for registration, login, the token endpoint and health', async () => {
    const bad = { authorization: 'Bearer not.a.jwt' };
    expect((await rest.get('/health/liveness', { headers: bad })).status).toBe(204);
    expect((await rest.post('/auth/login', { json: {} })).status).toBe(422);
    expect((await rest.post('/auth/token', { form: {} })).status).toBe(400);
    expect((await rest.post('/auth/register', { form: {} })).status).toBe(422);
  });
});
