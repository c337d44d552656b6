import { useTestApp } from '../helpers/use-test-app';

describe('HTTP surface', () => {
  const t = useTestApp();

  it('answers liveness and readiness with 204', async () => {
    expect((await fetch(`${t.url}/health/liveness`)).status).toBe(204);
    expect((await fetch(`${t.url}/health/readiness`)).status).toBe(204);
  });

  it('serves the GraphiQL IDE to browsers, with every asset from this origin', async () => {
    const response = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<title>Meeting API – GraphiQL</title>');
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map(
      (match) => match[1] as string,
    );
    expect(assets).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\/graphiql\.js$/),
        expect.stringMatching(/\/graphiql\.css$/),
      ]),
    );
    for (const asset of assets) {
      const served = await fetch(`${t.url}${asset}`);
      expect({ asset, status: served.status }).toEqual({ asset, status: 200 });
    }
  });

  it('tells a GET of /graphql that names no operation (curl) where the IDE is', async () => {
    const response = await fetch(`${t.url}/graphql`, { headers: { accept: '*/*' } });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { errors: { message: string }[] };
    expect(body).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: 'BAD_REQUEST' } }],
    });
    expect(body.errors[0]?.message).toMatch(/Open \/graphql in a browser for the IDE/);
    expect(body.errors[0]?.message).not.toMatch(/CSRF|Cross-Site/i);
  });

  it('still refuses a GET with an operation a browser form could have sent (CSRF)', async () => {
    const response = await fetch(`${t.url}/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/Cross-Site Request Forgery/);
    const allowed = await fetch(`${t.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(await allowed.json()).toEqual({
      data: { __typename: 'Query' },
      extensions: { cost: { requested: 0, actual: 0 } },
    });
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

  it('reports GraphQL syntax errors as client errors without leaking internals', async () => {
    const result = await t.gql.request('{ me { id ');
    expect(result.status).toBe(400);
    expect(result.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/^Syntax Error: Expected Name, found <EOF>/),
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
    expect(JSON.stringify(result)).not.toMatch(/stack|node_modules/);
  });

  it('refuses documents beyond the alias, depth and token limits', async () => {
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: me { id }`).join(' ');
    const tooManyAliases = await t.gql.request(`{ ${aliases} }`);
    expect(tooManyAliases.errors?.[0]?.message).toMatch(/Aliases limit of 15 exceeded/);

    let deep = 'id';
    for (let i = 0; i < 6; i += 1) {
      deep = `meeting { participants { ${deep} } }`;
    }
    const tooDeep = await t.gql.request(`{ meetingRequests { ${deep} } }`);
    expect(tooDeep.errors?.[0]?.message).toMatch(/Query depth limit of 10 exceeded/);

    const tokens = await t.gql.request(`{ me { ${'id '.repeat(2100)} } }`);
    expect(tokens.status).toBe(400);
    expect(tokens.errors?.[0]?.message).toMatch(/Document contains more tha[nt] 2000 tokens/);
  });

  it('does not suggest field names to unknown-field probes', async () => {
    const result = await t.gql.request('{ me { idd } }');
    expect(result.errors?.[0]?.message).not.toMatch(/Did you mean/);
  });

  it('sends security headers with a content security policy that admits only this origin', async () => {
    const response = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });
});
