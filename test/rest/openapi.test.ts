import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { GraphQLEnumType } from 'graphql';
import { type OpenApiDocument, openApiPath } from '../../rest/openapi';
import { routes } from '../../rest/routes';
import { useTestApp } from '../helpers/use-test-app';

const DOCUMENT_ID = 'https://meetings.test/openapi.json';

type Method = 'get' | 'post';

/** What a test sends: a JSON, form-encoded or multipart body, query, bearer token. */
interface Send {
  token?: string;
  path?: Record<string, string>;
  query?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  multipart?: Record<string, string>;
  raw?: { body: string; type: string };
  /** Sent as `Idempotency-Key`. */
  key?: string;
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** JSON-pointer segments as a URI fragment: escaped (`/` → `~1`), then percent-encoded (`{`). */
const pointer = (...segments: string[]): string =>
  segments
    .map((segment) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1')))
    .join('/');

/** A JSON Schema 2020-12 validator that knows the document, so `$ref`s resolve inside it. */
function validatorFor(document: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  // The document's own fields are not JSON Schema keywords; schemas are only read inside it.
  ajv.addVocabulary(['openapi', 'info', 'servers', 'tags', 'paths', 'components']);
  ajv.addSchema(document as unknown as object, DOCUMENT_ID);
  return ajv;
}

describe('OpenAPI document of the REST facade', () => {
  const t = useTestApp();
  let document: OpenApiDocument;
  let ajv: Ajv2020;
  const answered = new Set<string>();

  const api = (path: string): string => `${t.url}/api/v1${path}`;

  /** The validator of a route's documented body for a status (following a response `$ref`). */
  function documentedBody(method: Method, template: string, status: number): ValidateFunction {
    const operation = document.paths[template]?.[method];
    expect({ route: `${method} ${template}`, documented: operation !== undefined }).toEqual({
      route: `${method} ${template}`,
      documented: true,
    });
    const response = operation?.responses[String(status)];
    expect({ route: `${method} ${template}`, status, documented: response !== undefined }).toEqual({
      route: `${method} ${template}`,
      status,
      documented: true,
    });
    const at =
      typeof response?.['$ref'] === 'string'
        ? (response['$ref'] as string)
        : `#/${pointer('paths', template, method, 'responses', String(status))}`;
    const ref = `${DOCUMENT_ID}${at}/${pointer('content', 'application/json', 'schema')}`;
    const validate = ajv.getSchema(ref);
    if (!validate) {
      throw new Error(`no schema at ${ref}`);
    }
    return validate;
  }

  /** Calls a route and checks the answer against the document: status, body and error code. */
  async function call(method: Method, template: string, params: Send = {}): Promise<Answer> {
    const headers: Record<string, string> = params.token
      ? { authorization: `Bearer ${params.token}` }
      : {};
    if (params.key !== undefined) {
      headers['idempotency-key'] = params.key;
    }
    let body: string | FormData | undefined;
    if (params.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(params.json);
    } else if (params.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(params.form).toString();
    } else if (params.multipart) {
      body = new FormData();
      for (const [name, value] of Object.entries(params.multipart)) {
        body.append(name, value);
      }
    } else if (params.raw) {
      headers['content-type'] = params.raw.type;
      body = params.raw.body;
    }
    const path = template.replace(/\{([a-z_]+)\}/g, (_, name: string) =>
      encodeURIComponent(params.path?.[name] ?? ''),
    );
    const search = params.query ? `?${new URLSearchParams(params.query).toString()}` : '';
    const response = await fetch(api(`${path}${search}`), {
      method: method.toUpperCase(),
      headers,
      body,
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const answer: Answer = {
      status: response.status,
      headers: response.headers,
      body: await response.json(),
    };
    const validate = documentedBody(method, template, answer.status);
    validate(answer.body);
    expect({
      route: `${method} ${template}`,
      status: answer.status,
      errors: validate.errors,
    }).toEqual({ route: `${method} ${template}`, status: answer.status, errors: null });
    const code = (answer.body as { errors?: unknown }).errors;
    if (typeof code === 'string') {
      expect(Object.keys(examplesOf(method, template, answer.status))).toContain(code);
    }
    if (answer.status < 300) {
      answered.add(`${method} ${template}`);
    }
    return answer;
  }

  function examplesOf(method: Method, template: string, status: number): Record<string, unknown> {
    let response = document.paths[template]?.[method]?.responses[String(status)] ?? {};
    if (typeof response['$ref'] === 'string') {
      const name = response['$ref'].split('/').pop() as string;
      response = document.components.responses[name] ?? {};
    }
    const content = response['content'] as Record<string, { examples?: Record<string, unknown> }>;
    return content['application/json']?.examples ?? {};
  }

  beforeAll(async () => {
    const response = await fetch(api('/openapi.json'));
    expect(response.status).toBe(200);
    document = (await response.json()) as OpenApiDocument;
    ajv = validatorFor(document);
  });

  it('is an OpenAPI 3.1 document that lists every route of the table with its method and path', () => {
    expect(document).toMatchObject({
      openapi: '3.1.0',
      info: { version: '1.0.0' },
      servers: [{ url: '/api/v1' }],
    });
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method];
      expect({ route: `${route.method} ${route.path}`, operation }).toEqual({
        route: `${route.method} ${route.path}`,
        operation: expect.objectContaining({
          summary: route.summary,
          tags: [route.tag],
          security: route.public ? [] : [{ bearerAuth: [] }],
          responses: expect.objectContaining({ [route.response.status]: expect.any(Object) }),
        }),
      });
      const statuses = Object.keys(operation?.responses ?? {});
      expect(statuses.some((status) => status.startsWith('4'))).toBe(true);
    }
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/health/liveness', '/health/readiness']),
    );
  });

  it('gives every operation its own id and documents the limits of the inputs', () => {
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['Following', 'FollowingMeAlias']));
    expect(document.paths['/user/search']?.get?.parameters).toEqual([
      expect.objectContaining({
        name: 'q',
        in: 'query',
        required: true,
        schema: expect.objectContaining({ type: 'string', minLength: 2, maxLength: 100 }),
      }),
      expect.objectContaining({
        name: 'skip',
        required: false,
        schema: expect.objectContaining({ type: 'integer', minimum: 0, default: 0 }),
      }),
      expect.objectContaining({
        name: 'limit',
        required: false,
        schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100, default: 20 }),
      }),
      { $ref: '#/components/parameters/IfNoneMatch' },
    ]);
    expect(document.paths['/follow/following']?.get?.parameters).toEqual([
      expect.objectContaining({ name: 'skip', schema: expect.objectContaining({ default: 0 }) }),
      expect.objectContaining({
        name: 'limit',
        schema: expect.not.objectContaining({ default: expect.anything() }),
      }),
      { $ref: '#/components/parameters/IfNoneMatch' },
    ]);
    expect(document.paths['/meeting/{meeting_id}']?.get?.parameters).toEqual([
      expect.objectContaining({
        name: 'meeting_id',
        in: 'path',
        required: true,
        schema: expect.objectContaining({ type: 'string', format: 'uuid' }),
      }),
      { $ref: '#/components/parameters/IfNoneMatch' },
    ]);
    // Every read takes If-None-Match and answers its ETag, or 304.
    for (const [path, item] of Object.entries(document.paths)) {
      const read = (item as Record<string, { responses: Record<string, unknown> }>)['get'];
      if (read && !path.startsWith('/health')) {
        expect(Object.keys(read.responses)).toContain('304');
        expect(read.responses['200']).toMatchObject({
          headers: { ETag: { $ref: '#/components/headers/ETag' } },
        });
      }
    }
    expect(document.components.schemas['CreateMeetingBody']).toMatchObject({
      required: ['meeting', 'participants'],
      properties: {
        meeting: {
          required: ['title', 'start_time', 'location'],
          properties: { type: { enum: expect.arrayContaining(['all-hands', 'one-on-one']) } },
        },
        participants: { type: 'array', minItems: 1, items: { required: ['user_id'] } },
      },
    });
  });

  it('spells the enums of the records as the GraphQL schema does on the wire', () => {
    const wire = (name: string): unknown[] =>
      (t.instance.schema.getType(name) as GraphQLEnumType).getValues().map((value) => value.value);
    const enumOf = (record: string, field: string): unknown => {
      const properties = document.components.schemas[record]?.['properties'];
      return (properties as Record<string, { enum?: unknown }>)[field]?.enum;
    };
    expect(enumOf('UserPublic', 'roles')).toEqual(wire('Role'));
    expect(enumOf('ParticipantPublic', 'status')).toEqual(wire('ParticipantStatus'));
    expect(enumOf('MeetingPublic', 'type')).toEqual(wire('MeetingType'));
    expect(enumOf('MeetingPublic', 'status')).toEqual(wire('MeetingStatus'));
  });

  it('serves a documentation page whose assets all come from this origin', async () => {
    const response = await fetch(api('/docs'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    const assets = [...html.matchAll(/(?:src|href|data-openapi-url)="([^"]+)"/g)].map(
      (match) => match[1] as string,
    );
    expect(assets).toEqual(
      expect.arrayContaining([
        '/api/v1/openapi.json',
        expect.stringMatching(/swagger-ui\.css$/),
        expect.stringMatching(/swagger-ui-bundle\.js$/),
        expect.stringMatching(/init\.js$/),
      ]),
    );
    for (const asset of assets) {
      expect(asset.startsWith('/')).toBe(true);
      const served = await fetch(`${t.url}${asset}`);
      expect({ asset, status: served.status }).toEqual({ asset, status: 200 });
      if (asset.endsWith('init.js')) {
        const script = await served.text();
        expect(script).not.toMatch(/https?:\/\//);
        expect(script).toContain('validatorUrl: null');
      }
    }
    expect((await fetch(api('/docs/assets/index.html'))).status).toBe(404);
  });

  it('describes real answers: every body matches the schema of its route and status', async () => {
    const password = 'correct horse battery';
    const register = async (
      name: string,
      send: (fields: Record<string, string>) => Send,
    ): Promise<{ id: string; account: string; email: string }> => {
      const account = `${name.toLowerCase()}.${Date.now().toString(36)}`;
      const email = `${account}@example.com`;
      const fields = {
        name: `${name} Example`,
        account,
        email,
        password,
        password_confirm: password,
      };
      const answer = await call('post', '/auth/register', send(fields));
      expect(answer.status).toBe(201);
      return answer.body as { id: string; account: string; email: string };
    };
    const alice = await register('Alice', (form) => ({ form }));
    const bob = await register('Bobby', (multipart) => ({ multipart }));
    const carol = await register('Carol', (json) => ({ json }));

    const signIn = await call('post', '/auth/login', { json: { email: alice.email, password } });
    expect(signIn.status).toBe(200);
    const aliceToken = (signIn.body as { access_token: string }).access_token;
    const grant = await call('post', '/auth/token', {
      form: { grant_type: 'password', username: bob.account, password },
    });
    expect(grant.status).toBe(200);
    const bobToken = (grant.body as { access_token: string }).access_token;
    const refreshed = await call('post', '/auth/token', {
      json: { refresh_token: (grant.body as { refresh_token: string }).refresh_token },
    });
    expect(refreshed.status).toBe(200);
    const carolToken = (
      (await call('post', '/auth/login', { form: { email: carol.account, password } })).body as {
        access_token: string;
      }
    ).access_token;

    const asAlice = { token: aliceToken };
    expect((await call('get', '/user/me', asAlice)).body).toMatchObject({ id: alice.id });
    const search = await call('get', '/user/search', { ...asAlice, query: { q: 'example' } });
    expect(search.body).toMatchObject({ count: 3 });
    await call('get', '/user/{account}', { ...asAlice, path: { account: bob.account } });
    await call('post', '/follow/follow/{user_id}', { ...asAlice, path: { user_id: bob.id } });
    await call('post', '/follow/{user_id}/add', { ...asAlice, path: { user_id: carol.id } });
    const following = await call('get', '/follow/following', asAlice);
    expect(following.body).toMatchObject({ count: 2 });
    await call('get', '/follow/me/following', { ...asAlice, query: { limit: '1' } });
    await call('get', '/follow/followers', { token: bobToken });
    await call('get', '/follow/me/followers', { token: bobToken });
    await call('get', '/follow/status/{user_id}', { ...asAlice, path: { user_id: bob.id } });
    await call('post', '/follow/unfollow/{user_id}', { ...asAlice, path: { user_id: carol.id } });
    await call('post', '/follow/{user_id}/remove', { ...asAlice, path: { user_id: bob.id } });

    const created = await call('post', '/meeting/create', {
      ...asAlice,
      json: {
        meeting: {
          title: 'Quarterly planning',
          start_time: new Date(Date.now() + 86_400_000).toISOString(),
          location: 'Room 4, HQ',
        },
        participants: [{ user_id: bob.id }],
      },
    });
    expect(created.status).toBe(201);
    const meeting = { meeting_id: (created.body as { id: string }).id };
    await call('get', '/meeting/{meeting_id}', { ...asAlice, path: meeting });
    await call('post', '/meeting/{meeting_id}/participants/add', {
      ...asAlice,
      path: meeting,
      json: { user_id: carol.id },
    });
    const requests = await call('get', '/meeting/requests', { token: bobToken });
    expect(requests.body).toEqual([expect.objectContaining({ meeting_id: meeting.meeting_id })]);
    const approved = await call('post', '/meeting/{meeting_id}/approve', {
      token: bobToken,
      path: meeting,
    });
    expect(approved.body).toEqual({ message: 'Meeting approved successfully' });
    await call('post', '/meeting/{meeting_id}/decline', { token: carolToken, path: meeting });
    await call('get', '/meeting/index', asAlice);

    // Failures, each in the shape the document gives for its route and status.
    const failures: Array<[() => Promise<Answer>, number]> = [
      [() => call('get', '/user/search', { ...asAlice, query: { q: 'x', limit: '0' } }), 422],
      [
        () =>
          call('get', '/meeting/{meeting_id}', { token: carolToken, path: { meeting_id: 'nope' } }),
        422,
      ],
      [
        () =>
          call('get', '/meeting/{meeting_id}', {
            ...asAlice,
            path: { meeting_id: crypto.randomUUID() },
          }),
        404,
      ],
      [() => call('get', '/user/me'), 401],
      [() => call('get', '/user/me', { token: 'not-a-token' }), 401],
      [
        () =>
          call('post', '/auth/login', { json: { email: alice.email, password: 'wrong password' } }),
        401,
      ],
      [
        () =>
          call('post', '/auth/token', {
            form: { grant_type: 'password', username: alice.email, password: 'wrong' },
          }),
        400,
      ],
      [() => call('post', '/auth/token', { form: { grant_type: 'client_credentials' } }), 400],
      [
        () =>
          call('post', '/auth/register', {
            json: {
              name: 'Alice Example',
              account: alice.account,
              email: alice.email,
              password,
              password_confirm: password,
            },
          }),
        409,
      ],
      [
        () => call('post', '/follow/follow/{user_id}', { ...asAlice, path: { user_id: alice.id } }),
        409,
      ],
      [
        () =>
          call('post', '/meeting/{meeting_id}/participants/add', {
            token: bobToken,
            path: meeting,
            json: { user_id: carol.id },
          }),
        403,
      ],
      [
        () =>
          call('post', '/meeting/create', {
            ...asAlice,
            raw: { body: 'hello', type: 'text/plain' },
          }),
        415,
      ],
      [
        () =>
          call('post', '/meeting/create', {
            ...asAlice,
            raw: { body: '{"meeting": ', type: 'application/json' },
          }),
        400,
      ],
      [
        () =>
          call('post', '/meeting/create', {
            ...asAlice,
            json: { meeting: { title: 'x' }, participants: [] },
          }),
        422,
      ],
    ];
    for (const [attempt, status] of failures) {
      expect((await attempt()).status).toBe(status);
    }

    // Idempotency-Key: a replay, a key reused with another request, malformed keys.
    const key = `openapi-${Date.now()}`;
    const startTime = new Date(Date.now() + 86_400_000).toISOString();
    const keyed = (title: string, sent = key) =>
      call('post', '/meeting/create', {
        ...asAlice,
        key: sent,
        json: {
          meeting: {
            title,
            start_time: startTime,
            location: 'Room 4, HQ',
          },
          participants: [{ user_id: bob.id }],
        },
      });
    expect((await keyed('Keyed planning')).status).toBe(201);
    expect((await keyed('Keyed planning')).headers.get('idempotent-replayed')).toBe('true');
    expect((await keyed('Other planning')).body).toEqual({ errors: 'IDEMPOTENCY_KEY_REUSED' });
    expect((await keyed('Keyed planning', 'x'.repeat(256))).status).toBe(400);
    const badKey = await call('post', '/meeting/{meeting_id}/approve', {
      token: bobToken,
      path: meeting,
      key: '',
    });
    expect(badKey.body).toEqual({ errors: 'IDEMPOTENCY_KEY_INVALID' });
    const challenge = await call('get', '/follow/following');
    expect(challenge.headers.get('www-authenticate')).toBe('Bearer realm="api"');

    const unanswered = routes
      .map((route) => `${route.method} ${openApiPath(route.path)}`)
      .filter((route) => !answered.has(route));
    expect(unanswered).toEqual([]);
  });
});
