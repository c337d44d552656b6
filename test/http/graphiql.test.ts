import { request } from 'node:http';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** The CSP a GET of `path` answers with, sent with the given Host header. */
function policyFor(url: string, path: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: { host } }, (res) => {
      res.resume();
      resolve(String(res.headers['content-security-policy'] ?? ''));
    });
    req.on('error', reject);
    req.end();
  });
}

const directive = (csp: string, name: string): string[] =>
  csp
    .split(';')
    .map((part) => part.trim().split(/\s+/))
    .find(([directiveName]) => directiveName === name)
    ?.slice(1) ?? [];

/** The IDE page, as a browser opening the endpoint asks for it. */
const openIde = (url: string): Promise<Response> =>
  fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });

describe('GraphiQL at /graphql', () => {
  let t: TestApp;
  let html: string;
  let assets: string[];

  beforeAll(async () => {
    t = await startTestApp();
    html = await (await openIde(t.url)).text();
    // What the page loads: its stylesheets and scripts, in order.
    assets = [...html.matchAll(/<(?:link rel="stylesheet" href|script src)="([^"]*)"/g)].map(
      (match) => match[1] as string,
    );
  });
  afterAll(() => t.close());

  it('serves the IDE page as HTML with no URL of another origin', async () => {
    const response = await openIde(t.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('<div id="graphiql">');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/https?:\/\/|wss?:\/\/|\/\/[a-z]/i);
    // Besides what it loads, the page links only its icon (none) and the home page.
    const urls = [...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((match) => match[1]);
    expect(urls.filter((url) => !assets.includes(url as string))).toEqual(['data:,', '/']);
    const at = '^/graphql/ide/assets/';
    expect(assets).toEqual([
      ...[
        `${at}graphiql@3\\.[\\d.]+/graphiql\\.min\\.css$`,
        `${at}@graphiql/plugin-explorer@3\\.[\\d.]+/dist/style\\.css$`,
        `${at}react@18\\.[\\d.]+/umd/react\\.production\\.min\\.js$`,
        `${at}react-dom@18\\.[\\d.]+/umd/react-dom\\.production\\.min\\.js$`,
        `${at}graphql-ws@[\\d.]+/umd/graphql-ws\\.min\\.js$`,
        `${at}graphiql@3\\.[\\d.]+/graphiql\\.min\\.js$`,
        `${at}@graphiql/plugin-explorer@3\\.[\\d.]+/dist/index\\.umd\\.js$`,
      ].map((pattern) => expect.stringMatching(new RegExp(pattern))),
      '/graphql/ide/start.js',
    ]);
  });

  it('answers every asset the page references from this origin', async () => {
    for (const asset of assets) {
      const served = await fetch(`${t.url}${asset}`);
      const type = served.headers.get('content-type') ?? '';
      const body = await served.text();
      expect({ asset, status: served.status, empty: body.length === 0 }).toEqual({
        asset,
        status: 200,
        empty: false,
      });
      expect(type).toMatch(
        asset.endsWith('.css') ? /^text\/css/ : /^(text|application)\/javascript/,
      );
    }
  });

  it('serves the graphql-ws browser client, which speaks graphql-transport-ws', async () => {
    const bundle = assets.find((asset) => asset.includes('/graphql-ws@')) ?? '';
    const source = await (await fetch(`${t.url}${bundle}`)).text();
    expect(source).toContain('graphqlWs');
    expect(source).toContain('graphql-transport-ws');
  });

  it('starts a fetcher for /graphql whose requests and subscriptions carry the signed-in token', async () => {
    const start = await (await fetch(`${t.url}/graphql/ide/start.js`)).text();
    expect(start).toContain('"endpoint":"/graphql"');
    expect(start).toContain('login(input: $input) { tokens { accessToken expiresIn } }');
    expect(start).toContain('window.sessionStorage.setItem(SESSION_KEY');
    expect(start).toContain("headers.Authorization = 'Bearer ' + session.accessToken;");
    expect(start).toContain('graphqlWs.createClient(');
    expect(start).toMatch(/connectionParams:.*\{ Authorization: authorization \}/);
    expect(start).toMatch(/GraphiQL\.createFetcher\(\{ url: httpUrl\.href, wsClient: /);
  });

  it('sends old /graphiql bookmarks to /graphql for good', async () => {
    for (const path of ['/graphiql', '/graphiql/']) {
      const response = await fetch(`${t.url}${path}`, { redirect: 'manual' });
      expect({ path, status: response.status, location: response.headers.get('location') }).toEqual(
        { path, status: 301, location: '/graphql' },
      );
    }
  });

  it('serves only the listed files of a package, nothing else of node_modules', async () => {
    const react = assets.find((asset) => asset.includes('/react@')) ?? '';
    const packageRoot = react.replace(/\/umd\/.*$/, '');
    for (const path of [
      `${packageRoot}/package.json`,
      `${packageRoot}/index.js`,
      `${packageRoot}/umd/react.development.js`,
      `${packageRoot}/../react-dom@18.3.1/package.json`,
      '/graphql/ide/assets/express@5.2.1/package.json',
      '/graphql/ide/nothing-here',
    ]) {
      const response = await fetch(`${t.url}${path}`);
      expect({ path, status: response.status, body: await response.text() }).toEqual({
        path,
        status: 404,
        body: '{"errors":"NOT_FOUND"}',
      });
    }
  });

  it('sends a strict CSP: scripts from this origin only, sockets to the same host only', async () => {
    const response = await openIde(t.url);
    const csp = response.headers.get('content-security-policy') ?? '';
    const host = new URL(t.url).host;
    expect(directive(csp, 'script-src')).toEqual(["'self'"]);
    expect(directive(csp, 'connect-src')).toEqual(["'self'", `ws://${host}`, `wss://${host}`]);
    expect(csp).not.toMatch(/unsafe-eval/);
    expect(directive(csp, 'default-src')).toEqual(["'self'"]);
  });

  it('never echoes a Host header that is not a plain host name into the policy', async () => {
    const forged = await policyFor(t.url, '/graphql', 'evil.example; script-src *');
    expect(directive(forged, 'connect-src')).toEqual(["'self'"]);
    expect(directive(forged, 'script-src')).not.toContain('*');
    const named = await policyFor(t.url, '/graphql', 'meet.example.org:8443');
    expect(directive(named, 'connect-src')).toEqual([
      "'self'",
      'ws://meet.example.org:8443',
      'wss://meet.example.org:8443',
    ]);
  });
});
