import { request } from 'node:http';
import { useTestApp } from '../helpers/use-test-app';

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

/** The files a stylesheet names with url(...), relative to it. */
const cssUrls = (css: string): string[] =>
  [...css.matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/g)]
    .map((match) => match[1] as string)
    .filter((url) => !url.startsWith('data:'));

describe('GraphiQL at /graphql', () => {
  const t = useTestApp();
  let html: string;
  let assets: string[];
  /** Where the bundle is served: /graphql/ide/<stamp>. */
  let base: string;
  let script: string;

  beforeAll(async () => {
    html = await (await openIde(t.url)).text();
    // What the page loads: its stylesheets and scripts, in order.
    assets = [
      ...html.matchAll(/<(?:link rel="stylesheet" href|script type="module" src)="([^"]*)"/g),
    ].map((match) => match[1] as string);
    base = (assets[0] ?? '').replace(/\/[^/]*$/, '');
    script = await (await fetch(`${t.url}${base}/graphiql.js`)).text();
  });

  it('serves the IDE page as HTML with no URL of another origin and no inline script', async () => {
    const response = await openIde(t.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('<div id="graphiql" data-endpoint="/graphql">');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/https?:\/\/|wss?:\/\/|\/\/[a-z]/i);
    // Besides what it loads, the page links only its icon (none) and the home page.
    const urls = [...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((match) => match[1]);
    expect(urls.filter((url) => !assets.includes(url as string))).toEqual(['data:,', '/']);
    // One stylesheet and one module, both of the bundle `npm run build` made, its stamp in the URL.
    expect(base).toMatch(/^\/graphql\/ide\/[0-9a-f]{16}$/);
    expect(assets).toEqual([`${base}/graphiql.css`, `${base}/graphiql.js`]);
  });

  it('answers every file the page loads, Monaco workers and fonts included, cached for good', async () => {
    const css = await (await fetch(`${t.url}${base}/graphiql.css`)).text();
    const workers = ['editor.worker.js', 'json.worker.js', 'graphql.worker.js'];
    for (const worker of workers) {
      // The module starts each worker from beside itself (new URL(file, import.meta.url)).
      expect(script).toContain(worker);
    }
    const files = [
      ...assets,
      ...workers.map((worker) => `${base}/${worker}`),
      ...cssUrls(css).map((url) => `${base}/${url.replace(/^\.\//, '')}`),
    ];
    expect(files.some((file) => file.endsWith('.ttf'))).toBe(true);
    for (const file of files) {
      const served = await fetch(`${t.url}${file}`);
      const body = await served.arrayBuffer();
      expect({ file, status: served.status, empty: body.byteLength === 0 }).toEqual({
        file,
        status: 200,
        empty: false,
      });
      expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const type = served.headers.get('content-type') ?? '';
      if (file.endsWith('.js')) {
        expect(type).toMatch(/^(text|application)\/javascript/);
      } else if (file.endsWith('.css')) {
        expect(type).toMatch(/^text\/css/);
      }
    }
  });

  it('bundles the graphql-ws client (graphql-transport-ws) and the sign-in that sends the token', () => {
    expect(script).toContain('graphql-transport-ws');
    expect(script).toContain('login(input: $input) { tokens { accessToken expiresIn } }');
    expect(script).toContain('meeting-api.session');
    expect(script).toContain('Bearer ');
    // Nothing in it is fetched from elsewhere: the only absolute URLs are in strings it never loads
    // (licence and documentation links), so the CSP test below is what keeps the page offline.
    expect(script).not.toMatch(/import\s*\(\s*["']https?:/);
  });

  it('sends old /graphiql bookmarks to /graphql for good', async () => {
    for (const path of ['/graphiql', '/graphiql/']) {
      const response = await fetch(`${t.url}${path}`, { redirect: 'manual' });
      expect({ path, status: response.status, location: response.headers.get('location') }).toEqual(
        { path, status: 301, location: '/graphql' },
      );
    }
  });

  it('serves only the files of the bundle, under its current stamp', async () => {
    for (const path of [
      `${base}/nothing-here.js`,
      `${base}/../../../package.json`,
      `${base.replace(/[0-9a-f]{16}$/, '0123456789abcdef')}/graphiql.js`,
      '/graphql/ide/graphiql.js',
      // Where GraphiQL 3's files were served from node_modules.
      '/graphql/ide/assets/react@18.3.1/umd/react.production.min.js',
      '/graphql/ide/start.js',
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

  it('sends a strict CSP: scripts and workers from this origin only, sockets to the same host only', async () => {
    const response = await openIde(t.url);
    const csp = response.headers.get('content-security-policy') ?? '';
    const host = new URL(t.url).host;
    expect(directive(csp, 'script-src')).toEqual(["'self'"]);
    // Monaco's workers are files of this origin: no blob: workers.
    expect(directive(csp, 'worker-src')).toEqual(["'self'"]);
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
