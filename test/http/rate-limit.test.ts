import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { TEST_REDIS_URL, testRedisReachable } from '../helpers/redis';

const LOGIN = `mutation ($username: String!, $password: String!) {
  login(input: { username: $username, password: $password }) { tokens { accessToken } }
}`;

async function loginAttempts(t: TestApp, username: string, count: number): Promise<string[]> {
  const reasons: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const result = await t.gql.request(LOGIN, { username, password: 'wrong password' });
    reasons.push(String(result.errors?.[0]?.extensions?.reason));
  }
  return reasons;
}

describe('sign-in attempts are rate limited', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_AUTH_PER_ACCOUNT: '3', RATE_LIMIT_AUTH_PER_IP: '8' });
  });
  afterAll(() => t.close());

  it('per account: the fourth attempt on one account is refused, with a retry delay', async () => {
    expect(await loginAttempts(t, 'victim@example.com', 4)).toEqual([
      'INCORRECT_EMAIL_OR_PASSWORD',
      'INCORRECT_EMAIL_OR_PASSWORD',
      'INCORRECT_EMAIL_OR_PASSWORD',
      'TOO_MANY_REQUESTS',
    ]);
    const response = await fetch(`${t.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'VICTIM@example.com', password: 'x' }),
    });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await response.json()).toEqual({ errors: 'TOO_MANY_REQUESTS' });
  });

  it('per client address: spreading attempts over accounts does not escape the limit', async () => {
    const reasons = await loginAttempts(t, 'a1@example.com', 2);
    reasons.push(...(await loginAttempts(t, 'a2@example.com', 2)));
    reasons.push(...(await loginAttempts(t, 'a3@example.com', 1)));
    // 5 earlier attempts from this address count too: 8 allowed in all.
    expect(reasons.filter((r) => r === 'TOO_MANY_REQUESTS').length).toBeGreaterThan(0);
  });
});

describe('with REDIS_URL, instances share the counts', () => {
  it('counts attempts made on two instances against one budget', async () => {
    if (!(await testRedisReachable())) {
      return;
    }
    const env = {
      REDIS_URL: TEST_REDIS_URL,
      RATE_LIMIT_AUTH_PER_ACCOUNT: '4',
      RATE_LIMIT_AUTH_PER_IP: '1000',
    };
    const first = await startTestApp(env);
    const second = await startTestApp(env);
    try {
      const account = `shared-${randomBytes(4).toString('hex')}@example.com`;
      const reasons = [
        ...(await loginAttempts(first, account, 2)),
        ...(await loginAttempts(second, account, 2)),
        ...(await loginAttempts(first, account, 1)),
      ];
      expect(reasons.slice(0, 4).every((r) => r === 'INCORRECT_EMAIL_OR_PASSWORD')).toBe(true);
      expect(reasons[4]).toBe('TOO_MANY_REQUESTS');
    } finally {
      await first.close();
      await second.close();
    }
  });
});
