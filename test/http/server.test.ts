import { startTestApp, type TestApp } from '../helpers/test-app';

describe('HTTP surface', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers liveness and readiness with 204', async () => {
    expect((await fetch(`${t.url}/health/liveness`)).status).toBe(204);
    expect((await fetch(`${t.url}/health/readiness`)).status).toBe(204);
  });

  it('serves GraphQL Playground to browsers, with every asset from this origin', async () => {
    const response = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('GraphQL Playground');
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map(
      (match) => match[1] as string,
    );
    expect(assets).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/middleware\.js$/),
        expect.stringMatching(/index\.css$/),
      ]),
    );
    for (const asset of assets) {
      const served = await fetch(`${t.url}${asset}`);
      expect({ asset, status: served.status }).toEqual({ asset, status: 200 });
    }
  });

  it('answers unknown routes with the contract error body', async () => {
    const response = await fetch(`${t.url}/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ errors: 'NOT_FOUND' });
  });

  it('answers malformed and oversized JSON with the contract error bodies', async () => {
    const malformed = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query": ',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ errors: 'MALFORMED_BODY' });
    const huge = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ me { id } }`, padding: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({ errors: 'PAYLOAD_TOO_LARGE' });
  });

  it('reports GraphQL syntax errors without leaking internals', async () => {
    const result = await t.gql.request('{ me { id ');
    expect(result.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(JSON.stringify(result)).not.toMatch(/stack|node_modules/);
  });
});
