import { loadConfig } from '../../src/app-config';
import { FEED_BUILDS_AT_ONCE } from '../../src/modules/calendar/calendar.routes';
import type { Turns } from '../../src/platform/shared/turns';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { CalendarClient, WEEKLY_SEMINAR } from './calendar-client';
import type { IcsAnswer } from './documents';

/*
 * A process builds at most FEED_BUILDS_AT_ONCE feed documents at once (each holds its rows,
 * ical-generator's objects and its text until written); the other requests wait their turn and
 * are answered the same document when it comes. A 304 builds nothing and never waits.
 */

/** Waits until `condition` holds (the server's side of a request happens in its own time). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Takes every turn of `turns` until the answer's `release` is called. */
function holdAll(turns: Turns): { release: () => Promise<void> } {
  let open!: () => void;
  const held = new Promise<void>((resolve) => (open = resolve));
  const runs = Array.from({ length: turns.limit }, () => turns.run(() => held));
  return {
    release: async () => {
      open();
      await Promise.all(runs);
    },
  };
}

describe('calendar feed builds, a few at a time', () => {
  let t: TestApp;
  let calendar: CalendarClient;
  let reader: SeededUser;
  let url: string | null;
  let turns: Turns;
  /** The feed as one request alone is answered it. */
  let alone: IcsAnswer;

  beforeAll(async () => {
    t = await startTestApp();
    calendar = new CalendarClient(t);
    const [organizer, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
    reader = await t.seed.user({ name: 'Lise Meitner' });
    await calendar.meeting(organizer, WEEKLY_SEMINAR, [reader, guest]);
    await calendar.meeting(reader, { title: 'Colloquium', startTime: '2028-02-01T15:00:00Z' }, [
      guest,
    ]);
    url = (await calendar.createFeed(reader)).url;
    turns = t.instance.deps.feedBuilds;
    alone = await calendar.readFeed(url);
    expect(alone.status).toBe(200);
  });
  afterAll(() => t.close());

  it(`takes ${FEED_BUILDS_AT_ONCE} turns per process`, () => {
    expect(turns.limit).toBe(FEED_BUILDS_AT_ONCE);
  });

  it('answers many requests at once each the whole document, building no more at once than its turns', async () => {
    let building = 0;
    let mostAtOnce = 0;
    const run = turns.run.bind(turns);
    const spy = jest.spyOn(turns, 'run').mockImplementation((task) =>
      run(async () => {
        building += 1;
        mostAtOnce = Math.max(mostAtOnce, building);
        try {
          return await task();
        } finally {
          building -= 1;
        }
      }),
    );
    try {
      const answers = await Promise.all(
        Array.from({ length: 4 * FEED_BUILDS_AT_ONCE }, () => calendar.readFeed(url)),
      );
      for (const answer of answers) {
        expect(answer).toMatchObject({ status: 200, text: alone.text });
        expect(answer.headers.get('etag')).toBe(alone.headers.get('etag'));
        expect(answer.headers.get('content-length')).toBe(alone.headers.get('content-length'));
      }
      expect(spy).toHaveBeenCalledTimes(4 * FEED_BUILDS_AT_ONCE);
      expect(mostAtOnce).toBeGreaterThanOrEqual(1);
      expect(mostAtOnce).toBeLessThanOrEqual(FEED_BUILDS_AT_ONCE);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers a request that waited its turn the document, and a 304 without waiting', async () => {
    const hold = holdAll(turns);
    const waiting = calendar.readFeed(url);
    await until(() => turns.queued === 1);
    // Every turn is taken: the client that holds the document is answered all the same.
    const unchanged = await calendar.readFeed(url, {
      'if-none-match': alone.headers.get('etag') ?? '',
    });
    expect(unchanged.status).toBe(304);
    expect(turns.queued).toBe(1);
    await hold.release();
    const answer = await waiting;
    expect(answer).toMatchObject({ status: 200, text: alone.text });
    expect(answer.headers.get('etag')).toBe(alone.headers.get('etag'));
    expect(turns.queued).toBe(0);
  });

  it('gives the turn on when a waiting client has left', async () => {
    const hold = holdAll(turns);
    const leaving = new AbortController();
    const left = fetch(`${t.url}${new URL(url ?? '').pathname}`, { signal: leaving.signal });
    await until(() => turns.queued === 1);
    leaving.abort();
    await expect(left).rejects.toThrow();
    await hold.release();
    await until(() => turns.queued === 0);
    const next = await calendar.readFeed(url);
    expect(next).toMatchObject({ status: 200, text: alone.text });
  });

  it('answers 503 with Retry-After a request whose turn has not come within FEED_MAX_WAIT_MS', async () => {
    const maxWaitMs = loadConfig({}).feedMaxWaitMs;
    const hold = holdAll(turns);
    try {
      const started = performance.now();
      const shed = await calendar.readFeed(url);
      const waited = performance.now() - started;
      expect(shed.status).toBe(503);
      expect(shed.headers.get('retry-after')).toBe(String(Math.ceil(maxWaitMs / 1000)));
      expect(shed.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(shed.text)).toEqual({ errors: 'SERVICE_UNAVAILABLE' });
      // Shed at its deadline, not before (nor long after: it left the line then).
      expect(waited).toBeGreaterThanOrEqual(maxWaitMs - 50);
      expect(turns.queued).toBe(0);
    } finally {
      await hold.release();
    }
    expect(await calendar.readFeed(url)).toMatchObject({ status: 200, text: alone.text });
  });

  it('answers an unknown feed 404 without taking a turn, while every turn is taken', async () => {
    const hold = holdAll(turns);
    try {
      const unknown = await calendar.readFeed(`${t.url}/calendar/cal_${'0'.repeat(64)}.ics`);
      expect(unknown.status).toBe(404);
      expect(turns.queued).toBe(0);
    } finally {
      await hold.release();
    }
  });
});
