import { startTestApp, type TestApp } from '../helpers/test-app';
import type { SeededUser } from '../helpers/seed';
import { capturedLogger } from './log-capture';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids and request logs', () => {
  let t: TestApp;
  let ada: SeededUser;
  const logs = capturedLogger();

  beforeAll(async () => {
    t = await startTestApp({}, { logger: logs.logger });
    ada = await t.seed.user();
  });
  afterAll(() => t.close());

  const waitForLine = async (reqId: string) => {
    for (let waited = 0; waited < 2000; waited += 20) {
      const line = logs.lines.find(
        (entry) => entry['reqId'] === reqId && entry['msg'] === 'request',
      );
      if (line) {
        return line;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no request log line for ${reqId}`);
  };

  it('echoes a sane incoming X-Request-Id', async () => {
    const response = await fetch(`${t.url}/api/v1/user/me`, {
      headers: { authorization: `Bearer ${ada.token}`, 'x-request-id': 'mobile-7f3a:42' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('mobile-7f3a:42');
  });

  it('generates a fresh UUID when none, or no sane one, is sent', async () => {
    const ids = [];
    for (const sent of [undefined, 'has spaces in it', 'x'.repeat(200), '"quoted"']) {
      const response = await fetch(`${t.url}/health/liveness`, {
        headers: sent === undefined ? {} : { 'x-request-id': sent },
      });
      ids.push(response.headers.get('x-request-id'));
    }
    expect(ids).toEqual([
      expect.stringMatching(UUID),
      expect.stringMatching(UUID),
      expect.stringMatching(UUID),
      expect.stringMatching(UUID),
    ]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('returns the id on errors too: unknown routes and bad bodies', async () => {
    const unknown = await fetch(`${t.url}/nowhere`, { headers: { 'x-request-id': 'lost-1' } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-request-id')).toBe('lost-1');
    const malformed = await fetch(`${t.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'bad-body-1' },
      body: '{"email": ',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('x-request-id')).toBe('bad-body-1');
  });

  it('writes one compact line per REST request: id, route, status, duration, SQL, caller', async () => {
    await fetch(`${t.url}/api/v1/user/me`, {
      headers: { authorization: `Bearer ${ada.token}`, 'x-request-id': 'rest-line-1' },
    });
    const line = await waitForLine('rest-line-1');
    expect(line).toEqual({
      level: 30,
      time: expect.any(String),
      service: 'meeting-api',
      msg: 'request',
      reqId: 'rest-line-1',
      method: 'GET',
      route: '/api/v1/user/me',
      status: 200,
      ms: expect.any(Number),
      sqlStatements: expect.any(Number),
      userId: ada.id,
    });
    expect(line['sqlStatements']).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(line).length).toBeLessThan(300);
  });

  it('names a GraphQL request after its operation, through the parsed body', async () => {
    await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${ada.token}`,
        'x-request-id': 'gql-line-1',
      },
      body: JSON.stringify({ query: 'query WhoAmI { me { id } }' }),
    });
    const line = await waitForLine('gql-line-1');
    expect(line).toMatchObject({
      route: '/graphql WhoAmI',
      status: 200,
      userId: ada.id,
      sqlStatements: expect.any(Number),
    });
    expect(line['sqlStatements']).toBeGreaterThanOrEqual(1);
  });
});
