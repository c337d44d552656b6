import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { CalendarClient } from '../calendar/calendar-client';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { testDatabaseKind } from '../helpers/test-database';
import { FUTURE, verifiedUser } from '../mail/mail-fixtures';

/*
 * The development mail page in headless Chromium (issue 40): an invitation listed on /dev/mail,
 * opened whole, its HTML part shown in its sandboxed frame. A screenshot of each page is written
 * to SCREENSHOTS_DIR (default: the temporary directory) for a person to look at.
 */

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'];
const SCREENSHOTS = process.env['SCREENSHOTS_DIR'] ?? tmpdir();

const runnable = existsSync(CHROMIUM) || process.env['CI'] !== undefined;
const suite = runnable && testDatabaseKind === 'embedded' ? describe : describe.skip;

suite('the development mail page in a browser', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists an invitation and shows it whole, with its HTML and calendar', async () => {
    const owner = await verifiedUser(t);
    const guest = await verifiedUser(t);
    await new CalendarClient(t).meeting(owner, { title: 'Browser review', startTime: FUTURE }, [
      guest,
    ]);
    const page = await browser.newPage();
    const link = page.getByRole('link', { name: 'Invitation: Browser review' });
    const deadline = Date.now() + 15_000;
    await page.goto(`${t.url}/dev/mail`);
    while ((await link.count()) === 0 && Date.now() < deadline) {
      await page.waitForTimeout(300);
      await page.reload();
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'dev-mail-list.png'), fullPage: true });
    await link.click();
    await page.waitForURL(/\/dev\/mail\/[0-9a-f-]{36}$/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Invitation: Browser review');
    await expect(page.getByRole('link', { name: 'invite.ics' }).count()).resolves.toBe(1);
    const frame = page.frameLocator('iframe[title="HTML part"]');
    await expect(frame.getByRole('link', { name: 'Accept' }).count()).resolves.toBe(1);
    await expect(frame.locator('body').textContent()).resolves.toContain(
      `${owner.name} invites you to “Browser review”.`,
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'dev-mail-message.png'), fullPage: true });
    // A page taller than the window is captured without the sandboxed frame's content (Chromium
    // draws it in a process of its own): the frame is captured alone too.
    await page
      .locator('iframe[title="HTML part"]')
      .screenshot({ path: join(SCREENSHOTS, 'dev-mail-html.png') });
    await page.close();
  });
});
