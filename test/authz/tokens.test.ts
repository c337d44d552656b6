import { createHmac, createPublicKey, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, exportJWK, generateKeyPair, type JWK, type KeyLike, SignJWT } from 'jose';
import { loadSigningKey, type SigningKey } from '../../src/platform/auth/keys';
import { DEFAULT_JWT_SECRET } from '../../src/platform/auth/auth.settings';
import type { SeededUser } from '../helpers/seed';
import type { TestApp } from '../helpers/test-app';
import {
  graphqlWithHeaders,
  INVALID_TOKEN_CHALLENGE,
  NOT_AUTHENTICATED_CHALLENGE,
  restOutcome,
  startWorld,
  UNKNOWN_ID,
  type World,
} from './authz-fixtures';

const AUDIENCE = 'meeting-api';
const now = (): number => Math.floor(Date.now() / 1000);

/** A JWT put together by hand: any header, any claims, any signature (RFC 7519 compact form). */
function handmade(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  sign: (input: string) => string = () => '',
): string {
  const input = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(claims))}`;
  return `${input}.${sign(input)}`;
}

const hs256 = (secret: Buffer | string) => (input: string) =>
  createHmac('sha256', secret).update(input).digest('base64url');

interface Refusal {
  status: number;
  challenge: string;
  code: 'INVALID_TOKEN' | 'NOT_AUTHENTICATED';
}

const INVALID: Refusal = { status: 401, challenge: INVALID_TOKEN_CHALLENGE, code: 'INVALID_TOKEN' };
const MISSING: Refusal = {
  status: 401,
  challenge: NOT_AUTHENTICATED_CHALLENGE,
  code: 'NOT_AUTHENTICATED',
};

/** Asserts a request with this Authorization header is refused the same way on both faces. */
async function expectRefused(t: TestApp, world: World, authorization: string, refusal: Refusal) {
  const response = await world.rest.get('/user/me', { headers: { authorization } });
  expect(restOutcome(response)).toEqual({
    status: refusal.status,
    challenge: refusal.challenge,
    body: { errors: refusal.code },
  });
  const result = await graphqlWithHeaders(t, '{ me { id } }', {}, { authorization });
  expect({ data: result.data, errors: result.errors?.map((e) => e.extensions) }).toEqual({
    data: null,
    errors: [{ code: 'UNAUTHENTICATED', reason: refusal.code }],
  });
  // A write is refused as well, and writes nothing.
  const create = await world.rest.post(
    '/meeting/create',
    { json: { meeting: {}, participants: [] } },
    { headers: { authorization } },
  );
  expect(create.status).toBe(401);
}

describe('bearer tokens the service must refuse', () => {
  let world: World;
  let t: TestApp;
  let own: SigningKey;
  let foreign: { privateKey: KeyLike };
  let issuer: string;
  let publicJwk: JWK;
  let victim: SeededUser;
  let refreshToken: string;

  /** Claims of a token that would be valid, for `sub` (the admin by default). */
  const claims = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
    iss: issuer,
    sub: world.users.admin.id,
    aud: AUDIENCE,
    iat: now(),
    exp: now() + 300,
    jti: randomUUID(),
    ...overrides,
  });

  /** Signs with the service's own key (or `key`), header and claims adjustable. */
  const sign = (
    overrides: Record<string, unknown> = {},
    header: Record<string, unknown> = {},
    key: KeyLike = own.privateKey,
  ): Promise<string> => {
    const payload = Object.fromEntries(
      Object.entries(claims(overrides)).filter(([, value]) => value !== undefined),
    );
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'EdDSA', kid: own.kid, typ: 'at+jwt', ...header })
      .sign(key);
  };

  beforeAll(async () => {
    world = await startWorld();
    t = world.t;
    // The service derives its key from JWT_SECRET; startTestApp leaves the default in place.
    own = await loadSigningKey({ privateKeyPem: null, secret: DEFAULT_JWT_SECRET });
    foreign = await generateKeyPair('EdDSA');
    const metadata = (await (
      await fetch(`${t.url}/.well-known/oauth-authorization-server`)
    ).json()) as {
      issuer: string;
    };
    issuer = metadata.issuer;
    const jwks = (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    publicJwk = jwks.keys[0] as JWK;
    victim = await t.seed.user();
    const login = await world.rest.post<{ refresh_token: string }>('/auth/login', {
      json: { email: victim.email, password: victim.password },
    });
    refreshToken = login.body.refresh_token;
  });
  afterAll(() => t.close());

  it('accepts the control token these cases are variations of (same key, kid, typ, claims)', async () => {
    expect(publicJwk).toEqual(expect.objectContaining({ kid: own.kid, x: own.publicJwk.x }));
    const token = await sign();
    const response = await world.rest.get<{ id: string }>('/user/me', { token });
    expect({ status: response.status, id: response.body.id }).toEqual({
      status: 200,
      id: world.users.admin.id,
    });
    const data = await t.gql.data<{ me: { id: string } }>('{ me { id } }', {}, token);
    expect(data.me.id).toBe(world.users.admin.id);
  });

  const forged: Array<[string, () => Promise<string> | string]> = [
    ['an expired token', () => sign({ iat: now() - 3700, exp: now() - 100 })],
    ['a token not yet valid (nbf in the future)', () => sign({ nbf: now() + 600 })],
    ['a token for another audience', () => sign({ aud: 'another-api' })],
    ['a token whose audiences do not include this one', () => sign({ aud: ['a-api', 'b-api'] })],
    ['a token from another issuer', () => sign({ iss: 'https://issuer.invalid' })],
    ['a token with no issuer', () => sign({ iss: undefined })],
    ['a token with no expiry', () => sign({ exp: undefined })],
    ['a token with no jti', () => sign({ jti: undefined })],
    ['a token with no subject', () => sign({ sub: undefined })],
    ['a token naming a malformed session (sid)', () => sign({ sid: 'not-a-session' })],
    [
      'an unsigned token (alg none, crafted by hand)',
      () => handmade({ alg: 'none', typ: 'at+jwt', kid: own.kid }, claims()),
    ],
    [
      'an unsigned token (alg None)',
      () => handmade({ alg: 'None', typ: 'at+jwt', kid: own.kid }, claims()),
    ],
    [
      'an unsigned token (alg NONE) with a leftover signature',
      () => handmade({ alg: 'NONE', typ: 'at+jwt' }, claims(), () => 'c2lnbmF0dXJl'),
    ],
    [
      'HS256 keyed with the public key bytes from the JWKS (key confusion)',
      () =>
        handmade(
          { alg: 'HS256', typ: 'at+jwt', kid: own.kid },
          claims(),
          hs256(Buffer.from(base64url.decode(publicJwk.x as string))),
        ),
    ],
    [
      'HS256 keyed with the public key as PEM (key confusion)',
      () =>
        handmade(
          { alg: 'HS256', typ: 'at+jwt', kid: own.kid },
          claims(),
          hs256(
            createPublicKey({ key: publicJwk as never, format: 'jwk' })
              .export({ type: 'spki', format: 'pem' })
              .toString(),
          ),
        ),
    ],
    [
      'HS256 keyed with the JWKS entry as JSON (key confusion)',
      () =>
        handmade(
          { alg: 'HS256', typ: 'at+jwt', kid: own.kid },
          claims(),
          hs256(JSON.stringify(publicJwk)),
        ),
    ],
    [
      'a token signed by another Ed25519 key with the same kid',
      () => sign({}, {}, foreign.privateKey),
    ],
    [
      'a valid token whose payload was swapped for another user',
      async () => {
        const [header, , signature] = (await sign({ sub: victim.id })).split('.');
        const payload = base64url.encode(JSON.stringify(claims()));
        return `${header}.${payload}.${signature}`;
      },
    ],
    ['a refresh token used as an access token', () => refreshToken],
    ['a token typed as a refresh token', () => sign({}, { typ: 'refresh+jwt' })],
    ['a token typed as a plain JWT', () => sign({}, { typ: 'JWT' })],
    ['a token with no typ', () => sign({}, { typ: undefined })],
    ['a token naming an unknown user', () => sign({ sub: UNKNOWN_ID })],
    ['a token with a non-UUID subject (an account name)', () => sign({ sub: 'admin' })],
    ['a token with a non-UUID subject (an e-mail)', () => sign({ sub: world.users.admin.email })],
    ['a token with a numeric subject', () => sign({ sub: 1 })],
    ['garbage', () => 'garbage'],
    ['three dots of garbage', () => 'a.b.c'],
    ['a truncated token', async () => (await sign()).slice(0, -10)],
  ];

  it.each(forged)('%s is refused: 401 INVALID_TOKEN on both faces', async (_name, make) => {
    await expectRefused(t, world, `Bearer ${await make()}`, INVALID);
  });

  it('a token of a deleted user (deleted_at set) is refused with INVALID_TOKEN', async () => {
    const user = await t.seed.user();
    await expect(t.gql.data('{ me { id } }', {}, user.token)).resolves.toBeTruthy();
    await t.seed.update(user, { deletedAt: '2026-01-01' });
    await expectRefused(t, world, `Bearer ${user.token}`, INVALID);
    await expectRefused(t, world, `Bearer ${await sign({ sub: user.id })}`, INVALID);
  });

  it('a token of an inactive user is refused with INVALID_TOKEN', async () => {
    const user = await t.seed.user();
    await expect(t.gql.data('{ me { id } }', {}, user.token)).resolves.toBeTruthy();
    await t.seed.update(user, { isActive: false });
    await expectRefused(t, world, `Bearer ${user.token}`, INVALID);
    await expectRefused(t, world, `Bearer ${await sign({ sub: user.id })}`, INVALID);
  });

  it('a token accepted once is refused after it expires (no cache outlives the exp claim)', async () => {
    const exp = now() + 3;
    const token = await sign({ exp });
    const first = await world.rest.get('/user/me', { token });
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 1200));
    await expectRefused(t, world, `Bearer ${token}`, INVALID);
  });

  const malformedHeaders: Array<[string, () => Promise<string> | string]> = [
    ['"Bearer" with no token', () => 'Bearer'],
    ['"Bearer" followed by spaces only', () => 'Bearer    '],
    ['"Bearer" with two tokens', async () => `Bearer ${await sign()} ${await sign()}`],
    ['"Bearer" with a token holding a comma', async () => `Bearer ${await sign()},x`],
  ];

  it.each(malformedHeaders)('%s is refused: 401 INVALID_TOKEN', async (_name, make) => {
    await expectRefused(t, world, await make(), INVALID);
  });

  const otherSchemes: Array<[string, () => Promise<string> | string]> = [
    ['Basic credentials', () => `Basic ${Buffer.from('admin:password').toString('base64')}`],
    ['a valid token under the Token scheme', async () => `Token ${await sign()}`],
    ['a valid token with no scheme', () => sign()],
    ['a valid token under the Bearerx scheme', async () => `Bearerx ${await sign()}`],
  ];

  describe('refresh tokens the token endpoint must refuse', () => {
    /** A refresh token as the service makes them: typ refresh+jwt, audience the issuer. */
    const refresh = (overrides: Record<string, unknown> = {}, key?: KeyLike) =>
      sign({ aud: issuer, ...overrides }, { typ: 'refresh+jwt' }, key);

    /** Both faces refuse the trade: RFC 6749 invalid_grant, and GraphQL INVALID_TOKEN. */
    const expectTradeRefused = async (token: string) => {
      const response = await world.rest.post('/auth/token', {
        form: { grant_type: 'refresh_token', refresh_token: token },
      });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: { error: 'invalid_grant', error_description: expect.any(String) },
      });
      const result = await t.gql.request(
        'mutation ($token: String!) { refreshToken(input: { refreshToken: $token }) { tokens { accessToken } } }',
        { token },
      );
      expect({ data: result.data, errors: result.errors?.map((e) => e.extensions) }).toEqual({
        data: null,
        errors: [{ code: 'UNAUTHENTICATED', reason: 'INVALID_TOKEN' }],
      });
    };

    it('accepts the control refresh token (same key, typ and audience)', async () => {
      const response = await world.rest.post<{ access_token: string }>('/auth/token', {
        form: { grant_type: 'refresh_token', refresh_token: await refresh() },
      });
      expect(response.status).toBe(200);
    });

    const refusedRefresh: Array<[string, () => Promise<string> | string]> = [
      ['an access token', () => sign()],
      ['an expired refresh token', () => refresh({ iat: now() - 3700, exp: now() - 100 })],
      ['a refresh token signed by another key', () => refresh({}, foreign.privateKey)],
      [
        'an unsigned refresh token (alg none)',
        () => handmade({ alg: 'none', typ: 'refresh+jwt' }, claims({ aud: issuer })),
      ],
      [
        'an HS256 refresh token keyed with the public key bytes',
        () =>
          handmade(
            { alg: 'HS256', typ: 'refresh+jwt', kid: own.kid },
            claims({ aud: issuer }),
            hs256(Buffer.from(base64url.decode(publicJwk.x as string))),
          ),
      ],
      ['a refresh token naming an unknown user', () => refresh({ sub: UNKNOWN_ID })],
    ];

    it.each(refusedRefresh)('%s cannot be traded for tokens', async (_name, make) => {
      await expectTradeRefused(await make());
    });

    it('a refresh token of a user who became inactive or deleted cannot be traded', async () => {
      for (const change of [{ isActive: false }, { deletedAt: '2026-01-01' }]) {
        const user = await t.seed.user();
        const login = await world.rest.post<{ refresh_token: string }>('/auth/login', {
          json: { email: user.email, password: user.password },
        });
        await t.seed.update(user, change);
        await expectTradeRefused(login.body.refresh_token);
      }
    });
  });

  it.each(otherSchemes)('%s counts as no token: 401 NOT_AUTHENTICATED', async (_name, make) => {
    await expectRefused(t, world, await make(), MISSING);
  });
});

describe('tokens of a trusted external issuer the service must refuse', () => {
  const externalIssuer = 'https://idp.authz.test';
  let jwksServer: Server;
  let jwksUrl: string;
  let idp: { privateKey: KeyLike; publicJwk: JWK };
  let attacker: { privateKey: KeyLike };

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    idp = {
      privateKey: pair.privateKey,
      publicJwk: { ...(await exportJWK(pair.publicKey)), kid: 'idp-key', alg: 'RS256', use: 'sig' },
    };
    attacker = await generateKeyPair('RS256');
    jwksServer = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [idp.publicJwk] }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(() => new Promise((resolve) => jwksServer.close(resolve)));

  const external = (
    claims: Record<string, unknown>,
    options: { key?: KeyLike; header?: Record<string, unknown> } = {},
  ): Promise<string> =>
    new SignJWT({
      iss: externalIssuer,
      aud: AUDIENCE,
      iat: now(),
      exp: now() + 300,
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'idp-key', ...options.header })
      .sign(options.key ?? idp.privateKey);

  describe('with OAUTH_EXTERNAL_AUDIENCE set', () => {
    let world: World;

    beforeAll(async () => {
      world = await startWorld({
        OAUTH_EXTERNAL_ISSUER: externalIssuer,
        OAUTH_EXTERNAL_JWKS_URL: jwksUrl,
        OAUTH_EXTERNAL_AUDIENCE: AUDIENCE,
      });
    });
    afterAll(() => world.t.close());

    it('accepts the control token (the admin by id, and by e-mail)', async () => {
      for (const claims of [{ sub: world.users.admin.id }, { email: world.users.admin.email }]) {
        const token = await external(claims);
        const data = await world.t.gql.data<{ me: { id: string } }>('{ me { id } }', {}, token);
        expect(data.me.id).toBe(world.users.admin.id);
      }
    });

    const cases: Array<[string, (w: World) => Promise<string> | string]> = [
      [
        'signed by another key under the IdP kid',
        (w) => external({ sub: w.users.admin.id }, { key: attacker.privateKey }),
      ],
      ['for another audience', (w) => external({ sub: w.users.admin.id, aud: 'other-api' })],
      ['expired', (w) => external({ sub: w.users.admin.id, exp: now() - 100 })],
      ['not yet valid', (w) => external({ sub: w.users.admin.id, nbf: now() + 600 })],
      [
        'unsigned (alg none) naming the IdP as issuer',
        (w) =>
          handmade(
            { alg: 'none', kid: 'idp-key' },
            { iss: externalIssuer, aud: AUDIENCE, sub: w.users.admin.id, exp: now() + 300 },
          ),
      ],
      [
        'HS256 keyed with the IdP public key (key confusion)',
        (w) =>
          handmade(
            { alg: 'HS256', kid: 'idp-key' },
            { iss: externalIssuer, aud: AUDIENCE, sub: w.users.admin.id, exp: now() + 300 },
            hs256(
              createPublicKey({ key: idp.publicJwk as never, format: 'jwk' })
                .export({ type: 'spki', format: 'pem' })
                .toString(),
            ),
          ),
      ],
      [
        "signed by the service's own key but naming the IdP as issuer",
        async (w) => {
          const own = await loadSigningKey({ privateKeyPem: null, secret: DEFAULT_JWT_SECRET });
          return new SignJWT({ iss: externalIssuer, aud: AUDIENCE, sub: w.users.admin.id })
            .setProtectedHeader({ alg: 'EdDSA', kid: 'idp-key' })
            .setIssuedAt()
            .setExpirationTime('5m')
            .sign(own.privateKey);
        },
      ],
      ['naming an unknown e-mail', () => external({ email: 'nobody@authz.test' })],
      ['naming no user at all', () => external({ sub: 'external-subject' })],
    ];

    it.each(cases)('an external token %s is refused: 401 INVALID_TOKEN', async (_name, make) => {
      await expectRefused(world.t, world, `Bearer ${await make(world)}`, INVALID);
    });

    it('an external token with no expiry is refused: 401 INVALID_TOKEN (it would never expire)', async () => {
      const token = await new SignJWT({
        iss: externalIssuer,
        aud: AUDIENCE,
        sub: world.users.admin.id,
      })
        .setProtectedHeader({ alg: 'RS256', kid: 'idp-key' })
        .setIssuedAt()
        .sign(idp.privateKey);
      await expectRefused(world.t, world, `Bearer ${token}`, INVALID);
    });

    it('an external token naming a user who became deleted or inactive, by id or e-mail, is refused', async () => {
      const [deleted, inactive] = (await world.t.seed.users(2)) as [SeededUser, SeededUser];
      const tokens = new Map<SeededUser, string[]>();
      for (const user of [deleted, inactive]) {
        const both = [
          await external({ sub: user.id }),
          await external({ sub: 'x', email: user.email }),
        ];
        // Accepted first, so a cache of verified tokens would hold them.
        for (const token of both) {
          const data = await world.t.gql.data<{ me: { id: string } }>('{ me { id } }', {}, token);
          expect(data.me.id).toBe(user.id);
        }
        tokens.set(user, both);
      }
      await world.t.seed.update(deleted, { deletedAt: '2026-01-01' });
      await world.t.seed.update(inactive, { isActive: false });
      for (const token of [...tokens.values()].flat()) {
        await expectRefused(world.t, world, `Bearer ${token}`, INVALID);
      }
    });
  });

  describe('without OAUTH_EXTERNAL_AUDIENCE (the audience defaults to none)', () => {
    let world: World;

    beforeAll(async () => {
      world = await startWorld({
        OAUTH_EXTERNAL_ISSUER: externalIssuer,
        OAUTH_EXTERNAL_JWKS_URL: jwksUrl,
      });
    });
    afterAll(() => world.t.close());

    it('an external token minted for another audience is refused: 401 INVALID_TOKEN', async () => {
      const token = await external({ sub: world.users.admin.id, aud: 'some-other-api' });
      await expectRefused(world.t, world, `Bearer ${token}`, INVALID);
    });
  });
});
