import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { RestClient } from '../helpers/rest-client';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { testDatabaseKind } from '../helpers/test-database';
import { meetingBody } from '../rest/rest-fixtures';
import { HOME_PAGE_LINKS } from '../helpers/home-links';

const CHROMIUM = '/usr/bin/chromium';
/** Nothing but this service: no background updates, sync or QUIC probes of Google's. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
/** Where the screenshots go (SCREENSHOTS_DIR to keep them elsewhere); never the repository. */
const SCREENSHOTS = process.env['SCREENSHOTS_DIR'] ?? tmpdir();

// CI must run it (.ci/run installs Chromium); elsewhere, without Chromium, say why it is skipped.
const runnable = existsSync(CHROMIUM) || process.env['CI'] !== undefined;
if (!runnable) {
  console.warn(`test/browser skipped: no ${CHROMIUM} (apt-get install -y chromium) and CI unset`);
}
// A browser against the service, not against a database: once, in the embedded project.
const suite = runnable && testDatabaseKind === 'embedded' ? describe : describe.skip;

/**
 * The page's Monaco, as much of it as these tests use: GraphiQL 5 keeps it as
 * `globalThis.__MONACO`, and names its models `<instance>operation.graphql`,
 * `<instance>response.json`, ...
 */
interface PageMonaco {
  editor: {
    getModels(): Array<{ uri: { path: string }; getValue(): string; setValue(text: string): void }>;
  };
}

/** The text of one of GraphiQL's editors (`operation.graphql`, `response.json`), or null. */
const editorText = (page: Page, model: string): Promise<string | null> =>
  page.evaluate((name) => {
    const monaco = (globalThis as unknown as { __MONACO?: PageMonaco }).__MONACO;
    const found = monaco?.editor.getModels().find((candidate) => candidate.uri.path.endsWith(name));
    return found?.getValue() ?? null;
  }, model);

/** Puts a document in the operation editor. */
const write = (page: Page, document: string): Promise<void> =>
  page.evaluate((text) => {
    const monaco = (globalThis as unknown as { __MONACO: PageMonaco }).__MONACO;
    const operation = monaco.editor
      .getModels()
      .find((candidate) => candidate.uri.path.endsWith('operation.graphql'));
    operation?.setValue(text);
  }, document);

/** Puts a document in the operation editor and runs it with the page's run button. */
async function run(page: Page, document: string): Promise<void> {
  await write(page, document);
  // GraphiQL takes the editor's text a moment later (debounced): run once it has, with the
  // button in its run state (while a subscription runs, it stops it).
  await new Promise((resolve) => setTimeout(resolve, 500));
  await page.click('.graphiql-execute-button[aria-label^="Execute"]', { timeout: 10_000 });
}

/** Waits until the result pane shows `text`, and answers what it shows. */
async function resultShows(page: Page, text: string): Promise<string> {
  await page.waitForFunction(
    (wanted) => {
      const monaco = (globalThis as unknown as { __MONACO?: PageMonaco }).__MONACO;
      const response = monaco?.editor
        .getModels()
        .find((candidate) => candidate.uri.path.endsWith('response.json'));
      return response?.getValue().includes(wanted) ?? false;
    },
    text,
    { timeout: 20_000 },
  );
  return (await editorText(page, 'response.json')) ?? '';
}

suite('The pages in a browser (headless Chromium)', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let origin: string;
  /** Requests the pages made to anywhere but this service. */
  const elsewhere: string[] = [];
  /** Errors the pages reported: exceptions, console errors (CSP refusals among them). */
  const problems: string[] = [];
  /** The warnings they logged (Monaco warns when it cannot start its workers). */
  const warnings: string[] = [];
  /** The web workers the pages started, by URL. */
  const workers: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    origin = new URL(t.url).origin;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:' && url.origin !== origin && url.host !== new URL(origin).host) {
        elsewhere.push(request.url());
      }
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') {
        problems.push(`console: ${message.text()} (${message.location().url})`);
      } else if (message.type() === 'warning') {
        warnings.push(message.text());
      }
    });
    page.on('worker', (worker) => workers.push(worker.url()));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('opens the home page and follows each of its links', async () => {
    const home = await page.goto(`${t.url}/`);
    expect(home?.status()).toBe(200);
    await page.screenshot({ path: join(SCREENSHOTS, 'browser-home.png') });
    const links = await page.$$eval('a[href]', (anchors) =>
      anchors.map((anchor) => anchor.getAttribute('href') ?? ''),
    );
    expect(links).toEqual(HOME_PAGE_LINKS);
    const followed: Array<{ link: string; status: number }> = [];
    for (const link of links) {
      await page.goto(`${t.url}/`);
      // The SDL is a download and health answers 204: neither replaces the page, so the answer
      // is watched rather than a navigation awaited.
      const [response] = await Promise.all([
        page.waitForResponse((candidate) => candidate.url() === `${t.url}${link}`),
        page.click(`a[href="${link}"]`),
      ]);
      followed.push({ link, status: response.status() });
      if (link === '/api/v1/docs') {
        await page.waitForSelector('.swagger-ui .information-container', { timeout: 20_000 });
        await page.screenshot({ path: join(SCREENSHOTS, 'browser-rest-docs.png') });
      }
    }
    expect(followed).toEqual(
      links.map((link) => ({ link, status: link.startsWith('/health/') ? 204 : 200 })),
    );
  }, 120_000);

  describe('the IDE at /graphql', () => {
    let user: SeededUser;
    /** connection_init payloads the page sent on its WebSockets. */
    const connectionInits: unknown[] = [];
    /** The subscribe messages it sent. */
    const subscribes: unknown[] = [];
    /** Authorization headers of the page's GraphQL requests over HTTP. */
    const authorizations: Array<string | null> = [];

    beforeAll(async () => {
      user = await t.seed.user({ name: 'Browser Tester' });
      page.on('websocket', (socket) => {
        socket.on('framesent', ({ payload }) => {
          const message = JSON.parse(String(payload)) as { type: string; payload?: unknown };
          if (message.type === 'connection_init') {
            connectionInits.push(message.payload ?? null);
          } else if (message.type === 'subscribe') {
            subscribes.push(message.payload);
          }
        });
      });
      page.on('request', (request) => {
        if (request.method() === 'POST' && request.url() === `${t.url}/graphql`) {
          authorizations.push(request.headers()['authorization'] ?? null);
        }
      });
      await page.goto(`${t.url}/graphql`);
      await page.waitForSelector('.graphiql-container .graphiql-query-editor .monaco-editor', {
        timeout: 30_000,
      });
      // Monaco's models exist once the editor has its text.
      await page.waitForFunction(
        () => (globalThis as unknown as { __MONACO?: PageMonaco }).__MONACO !== undefined,
      );
    }, 60_000);

    it('offers the GraphiQL Explorer plugin in the sidebar', async () => {
      await page.click('button[aria-label="Show GraphiQL Explorer"]');
      await page.waitForSelector('.graphiql-explorer-root');
      await page.screenshot({ path: join(SCREENSHOTS, 'browser-ide-explorer.png') });
      await page.click('button[aria-label="Hide GraphiQL Explorer"]');
    }, 30_000);

    it('starts GraphiQL 5 with the default document and the Monaco workers of this origin', async () => {
      expect(await editorText(page, 'operation.graphql')).toContain('subscription MyInvitations');
      // The GraphQL worker validates the document against the schema: it is running once the
      // editor marks an unknown field.
      await write(page, 'query Nothing {\n  noSuchField\n}\n');
      await page.waitForSelector('.graphiql-query-editor .squiggly-error', { timeout: 20_000 });
      const base = new URL(`${t.url}/graphql/ide/`).href;
      expect(workers.map((url) => url.replace(/[0-9a-f]{16}\//, '<stamp>/'))).toEqual(
        expect.arrayContaining([
          `${base}<stamp>/editor.worker.js`,
          `${base}<stamp>/graphql.worker.js`,
        ]),
      );
      expect(warnings.filter((warning) => /worker/i.test(warning))).toEqual([]);
    }, 60_000);

    it('signs in through the bar and runs `me` with the token', async () => {
      expect(await page.isHidden('#signed-in')).toBe(true);
      await page.fill('#sign-in input[name="username"]', user.email);
      await page.fill('#sign-in input[name="password"]', user.password);
      await page.click('#sign-in button[type="submit"]');
      await page.waitForSelector('#signed-in:not([hidden])');
      expect(await page.textContent('#viewer')).toBe(`Browser Tester (${user.account})`);
      expect(await page.isHidden('#sign-in')).toBe(true);
      const token = await page.evaluate(
        () =>
          (
            JSON.parse(sessionStorage.getItem('meeting-api.session') ?? '{}') as {
              accessToken?: string;
            }
          ).accessToken,
      );
      expect(token).toEqual(expect.any(String));

      const before = authorizations.length;
      await run(page, 'query Me {\n  me {\n    name\n    account\n  }\n}\n');
      const result = JSON.parse(await resultShows(page, 'Browser Tester')) as unknown;
      expect(result).toEqual({
        data: { me: { name: 'Browser Tester', account: user.account } },
        extensions: { cost: { requested: 1, actual: 1 } },
      });
      expect(authorizations.slice(before)).toContain(`Bearer ${token}`);
      await page.screenshot({ path: join(SCREENSHOTS, 'browser-ide-me.png') });
    }, 60_000);

    it('receives an invitation on a subscription started from the page', async () => {
      const owner = await t.seed.user({ name: 'Alice Organiser' });
      await run(
        page,
        [
          'subscription MyInvitations {',
          '  invitationReceived {',
          '    id',
          '    status',
          '    meeting {',
          '      title',
          '      startTime',
          '      owner {',
          '        name',
          '      }',
          '    }',
          '  }',
          '}',
          '',
        ].join('\n'),
      );
      // Subscribed once the page has sent its subscribe; the server registers it a moment later.
      const deadline = Date.now() + 10_000;
      while (subscribes.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(subscribes).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const token = await page.evaluate(
        () =>
          (
            JSON.parse(sessionStorage.getItem('meeting-api.session') ?? '{}') as {
              accessToken?: string;
            }
          ).accessToken,
      );
      expect(connectionInits.at(-1)).toEqual({ Authorization: `Bearer ${token}` });

      const rest = new RestClient(t.url);
      const created = await rest.post(
        '/meeting/create',
        { json: meetingBody([user.id], { title: 'Quarterly planning' }) },
        { token: owner.token },
      );
      expect(created.status).toBe(201);
      const shown = JSON.parse(await resultShows(page, 'Quarterly planning')) as unknown;
      expect(shown).toEqual({
        data: {
          invitationReceived: {
            id: expect.any(String),
            status: 'NEW',
            meeting: {
              title: 'Quarterly planning',
              startTime: expect.any(String),
              owner: { name: 'Alice Organiser' },
            },
          },
        },
      });
      await page.screenshot({ path: join(SCREENSHOTS, 'graphiql-subscription.png') });
    }, 60_000);

    it('signs out: the token is gone and `me` is refused', async () => {
      await page.click('#sign-out');
      await page.waitForSelector('#sign-in:not([hidden])');
      expect(await page.isHidden('#signed-in')).toBe(true);
      // The running subscription ended with the socket that carried the token.
      await page.waitForSelector('.graphiql-execute-button[aria-label^="Execute"]');
      expect(await page.evaluate(() => sessionStorage.getItem('meeting-api.session'))).toBeNull();
      await run(page, 'query Me {\n  me {\n    name\n  }\n}\n');
      const refused = JSON.parse(await resultShows(page, 'UNAUTHENTICATED')) as {
        errors?: Array<{ extensions?: { code?: string } }>;
      };
      expect(refused.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }, 60_000);
  });

  it('loaded nothing from another origin and met no error or refused script', () => {
    expect(elsewhere).toEqual([]);
    // Expected: `me` signed out answers 401, and Chromium, showing a document that is not a page
    // (the JSON, the SDL), asks for /favicon.ico, which stays the contract's 404.
    const expected = /status of 401 .*\/graphql\)$|status of 404 .*\/favicon\.ico\)$/;
    expect(problems.filter((problem) => !expected.test(problem))).toEqual([]);
  });
});
