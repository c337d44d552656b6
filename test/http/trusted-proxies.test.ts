import { networkInterfaces } from 'node:os';
import { loadConfig } from '../../src/app-config';
import { ConfigError } from '../../src/config';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Behind a balancer on another host, the client address is told by X-Forwarded-For only when the
 * balancer is named in TRUST_PROXY. The service listens on this machine's own non-loopback
 * address and is called there, so the peer it sees is that address, as a balancer's would be:
 * trusted, two clients behind it have limits of their own; not trusted (the default, loopback),
 * every client is the balancer, whatever X-Forwarded-For says.
 */

/** This machine's first non-loopback IPv4 address, if it has one. */
function ownAddress(): string | null {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) {
        return address.address;
      }
    }
  }
  return null;
}

const balancer = ownAddress();
if (!balancer) {
  console.warn('no non-loopback IPv4 address here: TRUST_PROXY is not tested');
}
const suite = balancer ? describe : describe.skip;

/** Sign-in attempts each client gets per window in these tests. */
const PER_IP = 3;

const LOGIN = `mutation ($username: String!, $password: String!) {
  login(input: { username: $username, password: $password }) { tokens { accessToken } }
}`;

/** A failed sign-in as `client` (X-Forwarded-For), on its own account: the answer's reason. */
async function signInAs(t: TestApp, client: string, attempt: number): Promise<string> {
  const response = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
    body: JSON.stringify({
      query: LOGIN,
      variables: { username: `${client}-${attempt}@example.com`, password: 'wrong password' },
    }),
  });
  const body = (await response.json()) as { errors?: Array<{ extensions?: { reason?: string } }> };
  return String(body.errors?.[0]?.extensions?.reason);
}

/** `client`'s attempts, one account each (so only the per-address limit can refuse them). */
async function attempts(t: TestApp, client: string, count: number): Promise<string[]> {
  const reasons: string[] = [];
  for (let attempt = 0; attempt < count; attempt += 1) {
    reasons.push(await signInAs(t, client, attempt));
  }
  return reasons;
}

const WRONG = 'INCORRECT_EMAIL_OR_PASSWORD';
const LIMITED = 'TOO_MANY_REQUESTS';

suite('client addresses behind a balancer (TRUST_PROXY)', () => {
  const limits = { RATE_LIMIT_AUTH_PER_IP: String(PER_IP) };

  describe('a balancer named in TRUST_PROXY', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ ...limits, TRUST_PROXY: `${balancer}` }, { host: `${balancer}` });
    });
    afterAll(() => t.close());

    it('gives each client behind it a limit of its own', async () => {
      expect(await attempts(t, '203.0.113.10', PER_IP + 1)).toEqual([
        ...Array<string>(PER_IP).fill(WRONG),
        LIMITED,
      ]);
      // Another client through the same balancer is not held by the first one's failures.
      expect(await attempts(t, '203.0.113.20', 1)).toEqual([WRONG]);
    });
  });

  describe('a balancer not named (TRUST_PROXY left at loopback)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(limits, { host: `${balancer}` });
    });
    afterAll(() => t.close());

    it('is every client itself: X-Forwarded-For from an address not trusted is not believed', async () => {
      expect(await attempts(t, '203.0.113.10', PER_IP)).toEqual(Array<string>(PER_IP).fill(WRONG));
      expect(await attempts(t, '203.0.113.20', 1)).toEqual([LIMITED]);
    });
  });
});

describe('TRUST_PROXY settings', () => {
  it('takes addresses, ranges and the named sets, and refuses anything else naming the variable', () => {
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/24,192.0.2.7' }).trustProxy).toEqual([
      'loopback',
      '10.0.0.0/24',
      '192.0.2.7',
    ]);
    expect(loadConfig({}).trustProxy).toEqual(['loopback']);
    for (const value of ['10.0.0.0/33', 'balancer.example']) {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY: must be addresses/);
    }
  });
});
