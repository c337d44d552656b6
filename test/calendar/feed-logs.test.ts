import { scrub } from '../../src/platform/observability/log-safety';
import { capturedLogger } from '../observability/log-capture';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { getIcs } from './documents';

/*
 * A feed's address is its credential: the request log names the route, never the path, and the
 * log scrubber masks such a secret wherever it might appear in a message (tracing's URL path too).
 */

describe('a calendar feed in the logs', () => {
  let t: TestApp;
  const captured = capturedLogger();

  beforeAll(async () => {
    t = await startTestApp({}, { logger: captured.logger });
  });
  afterAll(() => t.close());

  it('is logged by its route, never by its secret, found or not', async () => {
    const user = await t.seed.user();
    const { createCalendarFeed } = await t.gql.data<{
      createCalendarFeed: { feed: { url: string } };
    }>('mutation { createCalendarFeed { feed { url } } }', {}, user.token);
    const path = new URL(createCalendarFeed.feed.url).pathname;
    const secret = path.slice('/calendar/'.length, -'.ics'.length);
    expect((await getIcs(`${t.url}${path}`)).status).toBe(200);
    const unknown = `cal_${'f'.repeat(64)}`;
    expect((await getIcs(`${t.url}/calendar/${unknown}.ics`)).status).toBe(404);
    // The line is written when the response closes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const text = JSON.stringify(captured.lines);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(unknown);
    const feedLines = captured.lines.filter((line) => line['route'] === '/calendar/:secret.ics');
    expect(feedLines.map((line) => line['status'])).toEqual([200, 404]);
  });

  it('is masked by the log scrubber', () => {
    const secret = `cal_${'0123456789abcdef'.repeat(4)}`;
    expect(scrub(`GET /calendar/${secret}.ics failed`)).toBe('GET /calendar/[secret].ics failed');
    // Names of constraints and the like are not secrets.
    expect(scrub('meeting_occurrence_changes_original_unique')).toBe(
      'meeting_occurrence_changes_original_unique',
    );
  });
});
