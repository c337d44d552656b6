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

describe('GraphiQL', () => {
  let t: TestApp;
  let html: string;
  let assets: string[];

  beforeAll(async () => {
    t = await startTestApp();
    html = await (await fetch(`${t.url}/graphiql`)).text();
    assets = [...html.matchAll(/(?:src|href)="(\/[^"]*)"/g)].map((match) => match[1] as string);
  });
  afterAll(() => t.close());

  it('serves the IDE page as HTML with no URL of another origin', async () => {
    const response = await fetch(`${t.url}/graphiql`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('<div id="graphiql">');
    expect(html).not.toMatch(/https?:\/\/|wss?:\/\/|\/\/[a-z]/i);
    expect([...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((match) => match[1])).toEqual([
      'data:,',
      ...assets,
    ]);
    expect(assets).toEqual([
      expect.stringMatching(/^\/graphiql\/assets\/graphiql@3\.[\d.]+\/graphiql\.min\.css$/),
      expect.stringMatching(
        /^\/graphiql\/assets\/react@18\.[\d.]+\/umd\/react\.production\.min\.js$/,
      ),
      expect.stringMatching(/^\/graphiql\/assets\/react-dom@18\.[\d.]+\/umd\/react-dom\./),
      expect.stringMatching(/^\/graphiql\/assets\/graphql-ws@[\d.]+\/umd\/graphql-ws\.min\.js$/),
      expect.stringMatching(/^\/graphiql\/assets\/graphiql@3\.[\d.]+\/graphiql\.min\.js$/),
      '/graphiql/start.js',
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

  it('starts a fetcher for /graphql whose subscriptions carry the headers editor token', async () => {
    const start = await (await fetch(`${t.url}/graphiql/start.js`)).text();
    expect(start).toContain('"endpoint":"/graphql"');
    expect(start).toContain('graphqlWs.createClient(');
    expect(start).toMatch(/connectionParams:.*\{ Authorization: authorization \}/);
    expect(start).toMatch(/GraphiQL\.createFetcher\(\{ url: httpUrl\.href, wsClient: /);
    expect(start).toContain('\\"Authorization\\": \\"Bearer <access token>\\"');
  });

  it('serves only the listed files of a package, nothing else of node_modules', async () => {
    const react = assets.find((asset) => asset.includes('/react@')) ?? '';
    const packageRoot = react.replace(/\/umd\/.*$/, '');
    for (const path of [
      `${packageRoot}/package.json`,
      `${packageRoot}/index.js`,
      `${packageRoot}/umd/react.development.js`,
      `${packageRoot}/../react-dom@18.3.1/package.json`,
      '/graphiql/assets/express@5.2.1/package.json',
    ]) {
      const response = await fetch(`${t.url}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
  });

  it('sends a strict CSP: scripts from this origin only, sockets to the same host only', async () => {
    const response = await fetch(`${t.url}/graphiql`);
    const csp = response.headers.get('content-security-policy') ?? '';
    const host = new URL(t.url).host;
    expect(directive(csp, 'script-src')).toEqual(["'self'", expect.stringMatching(/^'sha256-/)]);
    expect(directive(csp, 'connect-src')).toEqual(["'self'", `ws://${host}`, `wss://${host}`]);
    expect(csp).not.toMatch(/unsafe-eval/);
    expect(directive(csp, 'default-src')).toEqual(["'self'"]);
  });

  it('never echoes a Host header that is not a plain host name into the policy', async () => {
    const forged = await policyFor(t.url, '/graphiql', 'evil.example; script-src *');
    expect(directive(forged, 'connect-src')).toEqual(["'self'"]);
    expect(directive(forged, 'script-src')).not.toContain('*');
    const named = await policyFor(t.url, '/graphiql', 'meet.example.org:8443');
    expect(directive(named, 'connect-src')).toEqual([
      "'self'",
      'ws://meet.example.org:8443',
      'wss://meet.example.org:8443',
    ]);
  });
});
