import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { capturedLogger } from '../observability/log-capture';
import { CalendarClient, type Feed } from './calendar-client';
import { getIcs, readWithIcalJs, valueOf } from './documents';

/*
 * Personal calendar feeds (issue 28): made, shown, made again (a new secret), ended; what they
 * hold (90 days back), and what reading one costs.
 */

const REVOKE_FEED = 'mutation { revokeCalendarFeed { revoked } }';
const FEED = 'query { calendarFeed { url createdAt } }';

describe('calendar feeds', () => {
  let t: TestApp;
  let calendar: CalendarClient;
  let owner: SeededUser;
  let guest: SeededUser;
  // The request log line counts each request's own statements (not other work of the service).
  const log = capturedLogger();

  beforeAll(async () => {
    t = await startTestApp({}, { logger: log.logger });
    calendar = new CalendarClient(t);
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });
  afterAll(() => t.close());

  it('rotates the secret when a feed is made again: the old address answers 404', async () => {
    const first = await calendar.createFeed(guest);
    const second = await calendar.createFeed(guest);
    expect(second.url).not.toBe(first.url);
    expect((await calendar.readFeed(first.url)).status).toBe(404);
    expect((await calendar.readFeed(second.url)).status).toBe(200);
    const shown = await t.gql.data<{ calendarFeed: Feed | null }>(FEED, {}, guest.token);
    // Only a hash of the secret is kept: the address is not shown again.
    expect(shown.calendarFeed).toEqual({ url: null, createdAt: second.createdAt });
  });

  it('ends a feed when revoked: its address answers 404, and there is none to show', async () => {
    const feed = await calendar.createFeed(owner);
    const revoke = () =>
      t.gql.data<{ revokeCalendarFeed: { revoked: boolean } }>(REVOKE_FEED, {}, owner.token);
    expect((await revoke()).revokeCalendarFeed.revoked).toBe(true);
    expect((await calendar.readFeed(feed.url)).status).toBe(404);
    expect(
      (await t.gql.data<{ calendarFeed: Feed | null }>(FEED, {}, owner.token)).calendarFeed,
    ).toBe(null);
    expect((await revoke()).revokeCalendarFeed.revoked).toBe(false);
  });

  it('stops answering the feed of a user who was deactivated', async () => {
    const leaving = await t.seed.user();
    const feed = await calendar.createFeed(leaving);
    expect((await calendar.readFeed(feed.url)).status).toBe(200);
    await t.seed.update(leaving, { isActive: false });
    expect((await calendar.readFeed(feed.url)).status).toBe(404);
  });

  it('answers 404 to an address that names no feed, well-formed or not', async () => {
    for (const path of [`cal_${'0'.repeat(64)}.ics`, 'cal_short.ics', `${'a'.repeat(68)}.ics`]) {
      const answer = await getIcs(`${t.url}/calendar/${path}`);
      expect([answer.status, JSON.parse(answer.text)]).toEqual([404, { errors: 'NOT_FOUND' }]);
    }
  });

  it('keeps meetings out of a feed once they ended more than 90 days ago (a series: its last)', async () => {
    const feedOwner = await t.seed.user({ name: 'Grace Hopper Feed' });
    const make = (title: string, fields: Record<string, unknown> = {}) =>
      calendar.meeting(feedOwner, { title, startTime: '2027-06-01T09:00:00Z', ...fields }, [owner]);
    const recent = await make('Eighty days ago');
    const old = await make('A hundred days ago');
    const endedLongAgo = await make('Series ended long ago', { recurrence: 'FREQ=DAILY' });
    const endedLately = await make('Series ended lately', { recurrence: 'FREQ=DAILY' });
    const endless = await make('Series without an end', { recurrence: 'FREQ=DAILY' });
    // The past cannot be booked through the API: moved there in the database (its trigger keeps
    // the span the feed reads).
    const em = t.instance.database.orm.em.fork();
    const move = (id: string, startDaysAgo: number, endsDaysAgo: number | null) =>
      em
        .getConnection()
        .execute(
          `update "meetings" set "start_time" = now() - make_interval(days => ?), ` +
            `"recurrence_ends_at" = case when ?::int is null then null ` +
            `else now() - make_interval(days => ?::int) end where "id" = ?`,
          [startDaysAgo, endsDaysAgo, endsDaysAgo, id],
        );
    await move(recent, 80, null);
    await move(old, 100, null);
    await move(endedLongAgo, 300, 100);
    await move(endedLately, 300, 80);
    await move(endless, 300, null);
    const feed = await calendar.createFeed(feedOwner);
    const uids = readWithIcalJs((await calendar.readFeed(feed.url)).text).events.map((event) =>
      valueOf(event, 'uid'),
    );
    expect(uids.sort()).toEqual([recent, endedLately, endless].sort());
  });

  it('reads a feed in at most four statements, however many meetings it holds', async () => {
    const busy = await t.seed.user({ name: 'Busy Feed Owner' });
    const book = (n: number, fields: Record<string, unknown> = {}) =>
      calendar.meeting(
        busy,
        { title: `Busy meeting ${n}`, startTime: `2027-08-0${n}T09:00:00Z`, ...fields },
        [owner, guest],
      );
    await book(1);
    const feed = await calendar.createFeed(busy);
    let reads = 0;
    const read = async (): Promise<unknown> => {
      reads += 1;
      const answer = await calendar.readFeed(feed.url, { 'x-request-id': `feed-read-${reads}` });
      const id = answer.headers.get('x-request-id');
      // The line is written when the response closes.
      await new Promise((resolve) => setTimeout(resolve, 20));
      return log.lines.find((line) => line['reqId'] === id)?.['sqlStatements'];
    };
    const one = await read();
    for (const n of [2, 3, 4, 5, 6]) {
      await book(
        n,
        n % 2 === 0 ? { recurrence: 'FREQ=DAILY;COUNT=5', timeZone: 'Europe/Berlin' } : {},
      );
    }
    // The feed, its meetings, their participants with their users; the series' changes too.
    expect(one).toBe(3);
    expect(await read()).toBe(4);
  });
});
