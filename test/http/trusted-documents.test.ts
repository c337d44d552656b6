import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { print } from 'graphql';
import { documentHash, loadTrustedDocuments } from '../../src/platform/graphql/trusted-documents';
import { operationDocuments } from '../../rest/operations';
import { useLiveClients, waitForSubscriptions } from '../helpers/live-client';
import { RestClient } from '../helpers/rest-client';
import { EventStreamClient } from '../helpers/sse-client';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { loadConfig } from '../../src/app-config';
import { capturedLogger } from '../observability/log-capture';
import {
  aUuid,
  expectAnswer,
  meetingBody,
  signUpViaRest,
  userPublic,
  type RestUser,
  type WireMeeting,
} from '../rest/rest-fixtures';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** The REST route GET /user/me runs this document: trusted by being a route's. */
const ME = print(operationDocuments().find((operation) => operation.name === 'Me')!.document);

/** What a client build adds, as GraphQL Code Generator's client preset writes it. */
const VIEWER = 'query Viewer { me { id account } }';
const INVITATIONS = 'subscription Invitations { invitationReceived { userId status } }';
const MANIFEST = { [documentHash(VIEWER)]: VIEWER, [documentHash(INVITATIONS)]: INVITATIONS };

const UNTRUSTED = '{ me { id email } }';

/** The refusal, whole: nothing else is said about a document outside the list. */
const NOT_ALLOWED = {
  errors: [{ message: expect.any(String), extensions: { code: 'PERSISTED_QUERY_NOT_ALLOWED' } }],
};

const apq = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: documentHash(text) } });

/** GraphQL over HTTP as a client sends it: POST a body, or GET its fields as parameters. */
function graphql(url: string) {
  const headers = (token?: string, accept = GRAPHQL_RESPONSE): Record<string, string> => ({
    accept,
    // Apollo's CSRF prevention lets through a GET that a browser form could not have sent.
    'apollo-require-preflight': 'true',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });
  return {
    post: (body: Record<string, unknown>, token?: string, accept?: string) =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { ...headers(token, accept), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    get: (fields: Record<string, unknown>, token?: string) => {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(fields)) {
        params.set(name, typeof value === 'string' ? value : JSON.stringify(value));
      }
      return fetch(`${url}/graphql?${params.toString()}`, { headers: headers(token) });
    },
  };
}

describe('trusted documents enforced (GRAPHQL_TRUSTED_DOCUMENTS=enforce)', () => {
  let t: TestApp;
  let dir: string;
  let rest: RestClient;
  let http: ReturnType<typeof graphql>;
  let alice: RestUser;
  const open = useLiveClients();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'trusted-documents-'));
    const file = join(dir, 'persisted-documents.json');
    await writeFile(file, JSON.stringify(MANIFEST));
    t = await startTestApp({
      GRAPHQL_TRUSTED_DOCUMENTS: 'enforce',
      GRAPHQL_TRUSTED_DOCUMENTS_FILE: file,
    });
    rest = new RestClient(t.url);
    http = graphql(t.url);
    // Signed up over REST: GraphQL's own seed builders send documents outside the list.
    alice = await signUpViaRest(rest);
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a posted document outside the list with 400 and PERSISTED_QUERY_NOT_ALLOWED', async () => {
    const response = await http.post({ query: UNTRUSTED }, alice.token);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
    expect(await response.json()).toEqual(NOT_ALLOWED);
  });

  it('refuses a document outside the list sent by GET, and introspection too', async () => {
    for (const query of [UNTRUSTED, '{ __schema { queryType { name } } }']) {
      const response = await http.get({ query }, alice.token);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(NOT_ALLOWED);
    }
  });

  it('answers the refusal with 200 to a client that accepts only application/json, as every request error', async () => {
    const response = await http.post({ query: UNTRUSTED }, alice.token, 'application/json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(NOT_ALLOWED);
  });

  it("runs a REST route's document by its text, its APQ hash, and its documentId (POST and GET)", async () => {
    const expected = {
      data: { me: expect.objectContaining({ id: alice.user.id }) },
      extensions: { cost: { requested: 1, actual: 1 } },
    };
    const requests = [
      http.post({ query: ME }, alice.token),
      http.get({ query: ME }, alice.token),
      http.post({ extensions: apq(ME) }, alice.token),
      http.get({ extensions: apq(ME) }, alice.token),
      http.post({ documentId: `sha256:${documentHash(ME)}` }, alice.token),
      http.get({ documentId: `sha256:${documentHash(ME)}` }, alice.token),
    ];
    for (const response of await Promise.all(requests)) {
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(expected);
    }
  });

  it('runs a document the manifest adds, by its id and by its text', async () => {
    const expected = {
      data: { me: { id: alice.user.id, account: alice.user.account } },
      extensions: { cost: { requested: 1, actual: 1 } },
    };
    for (const body of [{ documentId: documentHash(VIEWER) }, { query: VIEWER }]) {
      const response = await http.post(body, alice.token);
      expect(await response.json()).toEqual(expected);
    }
  });

  it('refuses to register a new document through APQ, and does not learn it', async () => {
    const registering = await http.post({ query: UNTRUSTED, extensions: apq(UNTRUSTED) });
    expect(registering.status).toBe(400);
    expect(await registering.json()).toEqual(NOT_ALLOWED);
    for (const body of [{ extensions: apq(UNTRUSTED) }, { documentId: documentHash(UNTRUSTED) }]) {
      const byId = await http.post(body, alice.token);
      expect(byId.status).toBe(400);
      expect(await byId.json()).toEqual(NOT_ALLOWED);
    }
  });

  it('refuses a subscription outside the list over WebSocket, and runs the one the manifest adds', async () => {
    const socket = open(t.url, alice.token);
    const refused = socket.subscribe('subscription { invitationReceived { meetingId } }');
    await refused.finished();
    expect(refused.ended?.error).toEqual([NOT_ALLOWED.errors[0]]);

    const invitations = socket.subscribe(INVITATIONS);
    await waitForSubscriptions(t.instance, 1);
    const bob = await signUpViaRest(rest);
    const created = await rest.post(
      '/meeting/create',
      { json: meetingBody([alice.user.id]) },
      { token: bob.token },
    );
    expect(created.status).toBe(201);
    expect(await invitations.received(1)).toEqual([
      { data: { invitationReceived: { userId: alice.user.id, status: 'NEW' } } },
    ]);
  });

  it('refuses a subscription outside the list as Server-Sent Events with 400', async () => {
    const stream = await new EventStreamClient().open(
      t.url,
      alice.token,
      'subscription { invitationReceived { meetingId } }',
    );
    expect(stream.status).toBe(400);
    expect(stream.body).toEqual(NOT_ALLOWED);
  });

  it('runs a trusted subscription as Server-Sent Events, by its text or by its hash alone', async () => {
    const stream = await new EventStreamClient().open(t.url, alice.token, INVITATIONS);
    stream.close();
    expect(stream.status).toBe(200);
    // graphql-sse requires a query: empty, beside the hash.
    const abort = new AbortController();
    const byHash = await fetch(`${t.url}/graphql/stream`, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${alice.token}`,
      },
      body: JSON.stringify({ query: '', extensions: apq(INVITATIONS) }),
      signal: abort.signal,
    });
    abort.abort();
    expect(byHash.status).toBe(200);
    expect(byHash.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });

  it('keeps the REST face as it is: register, login, user/me, meeting create and get', async () => {
    const carol = await signUpViaRest(rest);
    expect(carol.user).toEqual(userPublic({ account: carol.input.account }));
    expectAnswer(await rest.get('/user/me', { token: carol.token }), 200, carol.user);
    const created = await rest.post<WireMeeting>(
      '/meeting/create',
      { json: meetingBody([alice.user.id], { title: 'Trusted review' }) },
      { token: carol.token },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: aUuid(), title: 'Trusted review' });
    expectAnswer(
      await rest.get(`/meeting/${created.body.id}`, { token: carol.token }),
      200,
      created.body,
    );
  });
});

describe('trusted documents off (the default)', () => {
  let t: TestApp;
  let http: ReturnType<typeof graphql>;

  beforeAll(async () => {
    t = await startTestApp();
    http = graphql(t.url);
  });
  afterAll(() => t.close());

  it('keeps automatic persisted queries: an unknown hash is PERSISTED_QUERY_NOT_FOUND until registered', async () => {
    const query = '{ __typename }';
    const unknown = await http.post({ extensions: apq(query) });
    expect(await unknown.json()).toEqual({
      errors: [
        { message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } },
      ],
    });
    const registered = await http.post({ query, extensions: apq(query) });
    expect(await registered.json()).toEqual({
      data: { __typename: 'Query' },
      extensions: { cost: { requested: 0, actual: 0 } },
    });
    const byHash = await http.get({ extensions: apq(query) });
    expect(await byHash.json()).toEqual({
      data: { __typename: 'Query' },
      extensions: { cost: { requested: 0, actual: 0 } },
    });
  });

  it('runs any document', async () => {
    const response = await http.post({ query: UNTRUSTED });
    expect(response.status).toBe(200);
  });
});

describe('trusted documents logged (GRAPHQL_TRUSTED_DOCUMENTS=log)', () => {
  let t: TestApp;
  const logs = capturedLogger();

  beforeAll(async () => {
    t = await startTestApp({ GRAPHQL_TRUSTED_DOCUMENTS: 'log' }, { logger: logs.logger });
  });
  afterAll(() => t.close());

  it('runs a document outside the list and logs it once', async () => {
    const http = graphql(t.url);
    for (let i = 0; i < 2; i += 1) {
      const response = await http.post({ query: '{ __typename }', operationName: null });
      expect(await response.json()).toEqual({
        data: { __typename: 'Query' },
        extensions: { cost: { requested: 0, actual: 0 } },
      });
    }
    expect(logs.lines.filter((line) => line['component'] === 'graphql')).toEqual([
      expect.objectContaining({
        transport: 'http',
        documentId: documentHash('{ __typename }'),
        msg: expect.stringContaining('GRAPHQL_TRUSTED_DOCUMENTS=log'),
      }),
    ]);
  });

  it('runs a trusted document by documentId, as it will when enforced', async () => {
    const response = await graphql(t.url).post({ documentId: documentHash(ME) });
    expect(await response.json()).toEqual({
      data: null,
      errors: [
        expect.objectContaining({
          extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
        }),
      ],
      // Refused as the resolver ran: it answered nothing.
      extensions: { cost: { requested: 1, actual: 0 } },
    });
  });
});

describe('a manifest written by npm run codegen (the client preset)', () => {
  const root = join(__dirname, '..', '..');
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'trusted-codegen-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("trusts the client build's documents by the ids its generated code sends", async () => {
    // The CLI's own entry (its package exports no subpath for it).
    const cli = join(root, 'node_modules', '@graphql-codegen', 'cli', 'cjs', 'bin.js');
    await promisify(execFile)(process.execPath, [cli, '--config', 'codegen.yml', '--silent'], {
      cwd: root,
      env: { ...process.env, CODEGEN_OUT: dir },
      timeout: 60_000,
    });
    const file = join(dir, 'client', 'persisted-documents.json');
    const manifest = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    const [id] = Object.entries(manifest).find(([, text]) =>
      text.startsWith('query OwnMeetings'),
    ) as [string, string];
    expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);

    const t = await startTestApp({
      GRAPHQL_TRUSTED_DOCUMENTS: 'enforce',
      GRAPHQL_TRUSTED_DOCUMENTS_FILE: file,
    });
    try {
      const user = await signUpViaRest(new RestClient(t.url));
      const response = await graphql(t.url).post(
        { documentId: id, variables: { first: 5 } },
        user.token,
      );
      expect(await response.json()).toEqual({
        data: {
          meetings: {
            edges: [],
            pageInfo: { endCursor: null, hasNextPage: false },
            totalCount: 0,
          },
        },
        // The page and its pageInfo 1 each, up to 5 edges and their meetings 1 each: 12.
        extensions: { cost: { requested: 12, actual: 2 } },
      });
    } finally {
      await t.close();
    }
  }, 90_000);
});

describe('a manifest that is not one', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'trusted-bad-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    ['not JSON', 'query { me { id } }', /cannot be read as JSON/],
    ['a list', JSON.stringify([VIEWER]), /JSON object of document id/],
    ['a document that does not parse', JSON.stringify({ broken: '{ me { id ' }), /broken/],
  ])('stops the start when it is %s, naming the file', async (_name, content, problem) => {
    const file = join(dir, 'manifest.json');
    await writeFile(file, content);
    const load = () =>
      loadTrustedDocuments({
        config: { mode: 'enforce', file },
        builtIn: [],
        logger: capturedLogger().logger(loadConfig({})),
      });
    expect(load).toThrow(problem);
    expect(load).toThrow(file);
  });
});
