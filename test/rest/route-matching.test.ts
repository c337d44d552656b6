import { useTestApp } from '../helpers/use-test-app';
import { type RestUser, signUpViaRest } from './rest-fixtures';

/**
 * The REST routes are found through an index (rest/route-index.ts) that must match paths as
 * Express's router did: these are the answers the router gave, pinned.
 */
describe('REST route matching', () => {
  const t = useTestApp();
  const { rest } = t;
  let viewer: RestUser;

  beforeAll(async () => {
    viewer = await signUpViaRest(rest, { name: 'Route Matcher', account: 'route.matcher' });
  });

  const raw = (method: string, path: string, token = viewer.token) =>
    fetch(`${t.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });

  it('matches paths in any letter case, with or without a trailing slash and a query', async () => {
    const plain = await rest.get('/user/me', { token: viewer.token });
    expect(plain.status).toBe(200);
    for (const path of [
      '/API/V1/USER/ME',
      '/api/v1/User/Me',
      '/api/v1/user/me/',
      '/api/v1/user/me?x=1',
    ]) {
      const answer = await raw('GET', path);
      expect({ path, status: answer.status, body: await answer.text() }).toEqual({
        path,
        status: 200,
        body: plain.text,
      });
    }
  });

  it('prefers a static segment to a parameter: /meeting/requests is no meeting id', async () => {
    const requests = await rest.get<unknown[]>('/meeting/requests', { token: viewer.token });
    expect(requests.status).toBe(200);
    expect(Array.isArray(requests.body)).toBe(true);
  });

  it('answers HEAD as GET without a body', async () => {
    const answer = await raw('HEAD', '/api/v1/user/me');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await answer.text()).toBe('');
  });

  it('answers 404 NOT_FOUND for another method, a longer path, a double slash and the prefix', async () => {
    for (const [method, path] of [
      ['PUT', '/api/v1/user/me'],
      ['DELETE', '/api/v1/user/me'],
      ['POST', '/api/v1/user/me'],
      ['GET', '/api/v1/meeting/requests/extra'],
      ['GET', '/api/v1/user/me//'],
      ['GET', '/api/v1/'],
      ['GET', '/api/v1'],
    ] as const) {
      const answer = await raw(method, path);
      expect({ method, path, status: answer.status, body: await answer.json() }).toEqual({
        method,
        path,
        status: 404,
        body: { errors: 'NOT_FOUND' },
      });
    }
  });

  it('answers a parameter that is no valid URI encoding with 400', async () => {
    const answer = await raw('GET', '/api/v1/meeting/%E0%A4%A');
    expect(answer.status).toBe(400);
  });

  it('still serves the health probes under the prefix and at the root, in any case', async () => {
    for (const path of ['/health/liveness', '/api/v1/health/liveness', '/API/V1/HEALTH/LIVENESS']) {
      expect({ path, status: (await raw('GET', path)).status }).toEqual({ path, status: 204 });
    }
    expect((await raw('GET', '/.well-known/jwks.json')).status).toBe(200);
  });
});
