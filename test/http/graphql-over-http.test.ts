import { startTestApp, type TestApp } from '../helpers/test-app';

/** The three request errors the graphql-http audit sends, each as a fetch body. */
const FAILURES: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['a document that does not parse', { query: '{ me { id ' }],
  ['a document that does not validate', { query: '{ nosuchfield }' }],
  [
    'variables that do not coerce',
    { query: 'query ($id: UUID!) { meeting(meetingId: $id) { id } }', variables: { id: 7 } },
  ],
];

describe('GraphQL over HTTP status codes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const post = (body: Record<string, unknown>, accept: string) =>
    fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify(body),
    });

  it.each(FAILURES)(
    'answers %s with 200 and the errors to a client accepting only application/json',
    async (_name, body) => {
      const response = await post(body, 'application/json');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const result = (await response.json()) as { data?: unknown; errors?: unknown[] };
      expect(result.data).toBeUndefined();
      expect(result.errors?.length).toBeGreaterThan(0);
    },
  );

  it.each(FAILURES)(
    'answers %s with 400 to a client of application/graphql-response+json',
    async (_name, body) => {
      const response = await post(body, 'application/graphql-response+json');
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
      const result = (await response.json()) as { errors?: unknown[] };
      expect(result.errors?.length).toBeGreaterThan(0);
    },
  );

  it('keeps 200 for a successful answer and 401-free errors in data for either type', async () => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const response = await post({ query: '{ __typename }' }, accept);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        data: { __typename: 'Query' },
        extensions: { cost: { requested: 0, actual: 0 } },
      });
    }
  });
});

describe('GraphQL answer bytes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const post = (body: Record<string, unknown>, token?: string) =>
    fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });

  it('answers JSON text and a newline, its length counted in UTF-8 bytes', async () => {
    const name = 'Zoë Ångström 日本 🎉';
    const user = await t.seed.user({ name });
    const response = await post({ query: '{ me { name } }' }, user.token);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const cost = { requested: 1, actual: 1 };
    expect(bytes.toString('utf8')).toBe(
      `${JSON.stringify({ data: { me: { name } }, extensions: { cost } })}\n`,
    );
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
  });

  it('answers errors the same way, errors first', async () => {
    const response = await post({ query: '{ me { name } }' });
    const text = await response.text();
    const body = JSON.parse(text) as { errors: Array<{ extensions: { code: string } }> };
    expect(text).toBe(`${JSON.stringify(body)}\n`);
    expect(Object.keys(body)[0]).toBe('errors');
    expect(body.errors[0]?.extensions.code).toBe('UNAUTHENTICATED');
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
  });
});
