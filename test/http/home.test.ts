import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestApp } from '../helpers/use-test-app';
import { HOME_PAGE_LINKS } from '../helpers/home-links';

const COMMITTED_SDL = readFileSync(join(__dirname, '../../schema/schema.graphql'), 'utf8');

/** The addresses a page links, in order. */
const linksOf = (html: string): string[] =>
  [...html.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1] as string);

describe('The home page', () => {
  const t = useTestApp();

  it('links the IDE, the REST docs, the OpenAPI document, the SDL and health', async () => {
    const response = await fetch(`${t.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('<title>Meeting API</title>');
    expect(linksOf(html)).toEqual(HOME_PAGE_LINKS);
  });

  it('loads nothing: no script, no stylesheet, no URL of another origin', async () => {
    const html = await (await fetch(`${t.url}/`)).text();
    expect(html).not.toMatch(/<script|<link rel="stylesheet"/);
    expect(html).not.toMatch(/https?:\/\/|wss?:\/\/|\/\/[a-z]/i);
    expect([...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((match) => match[1])).toEqual([
      'data:,',
      ...linksOf(html),
    ]);
  });

  it('is sent with the security headers: a CSP admitting only this origin', async () => {
    const response = await fetch(`${t.url}/`);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('answers HEAD with the headers of the page and no body', async () => {
    const response = await fetch(`${t.url}/`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toBe('');
  });

  it('has every link answer: pages and documents 200, health 204', async () => {
    const html = await (await fetch(`${t.url}/`)).text();
    const answers = await Promise.all(
      linksOf(html).map(async (link) => {
        // As a browser following the link asks for it (the IDE is served to HTML readers).
        const response = await fetch(`${t.url}${link}`, { headers: { accept: 'text/html' } });
        await response.arrayBuffer();
        return { link, status: response.status };
      }),
    );
    expect(answers).toEqual(
      linksOf(html).map((link) => ({ link, status: link.startsWith('/health/') ? 204 : 200 })),
    );
  });

  it('serves the SDL as a schema.graphql download equal to the committed schema', async () => {
    const response = await fetch(`${t.url}/graphql/schema.graphql`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(
      'attachment; filename="schema.graphql"',
    );
    expect(await response.text()).toBe(COMMITTED_SDL);
  });

  it('leaves every other unknown path the contract 404', async () => {
    for (const path of ['/nowhere', '/index.html', '/favicon.ico', '/graphiql/x', '/api/v1/']) {
      const response = await fetch(`${t.url}${path}`);
      expect({ path, status: response.status, body: await response.text() }).toEqual({
        path,
        status: 404,
        body: '{"errors":"NOT_FOUND"}',
      });
    }
  });

  it('is not served for other methods on /', async () => {
    const response = await fetch(`${t.url}/`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('{"errors":"NOT_FOUND"}');
  });
});
