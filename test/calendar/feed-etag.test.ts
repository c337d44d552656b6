import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { capturedLogger } from '../observability/log-capture';
import { CalendarClient, WEEKLY_SEMINAR } from './calendar-client';
import type { IcsAnswer } from './documents';

/*
 * A feed's ETag is made of its data, not of its text, so that a calendar app holding the document
 * is answered 304 without it being built: each kind of change of what the document shows must
 * change it, and a new day must not.
 */

const DAY_MS = 86_400_000;

describe("a calendar feed's ETag", () => {
  let t: TestApp;
  let calendar: CalendarClient;
  let reader: SeededUser;
  let organizer: SeededUser;
  let guest: SeededUser;
  let url: string | null;
  let seriesId: string;
  let singleId: string;
  // The request log line counts each request's own statements (not other work of the service).
  const log = capturedLogger();

  beforeAll(async () => {
    t = await startTestApp({}, { logger: log.logger });
    calendar = new CalendarClient(t);
    reader = await t.seed.user({ name: 'Emmy Noether' });
    organizer = await t.seed.user({ name: 'David Hilbert' });
    guest = await t.seed.user({ name: 'Hermann Weyl' });
    // Weekly on Thursdays in Berlin; and one meeting the reader is invited to.
    seriesId = await calendar.meeting(organizer, WEEKLY_SEMINAR, [reader, guest]);
    singleId = await calendar.meeting(
      organizer,
      { title: 'Colloquium', startTime: '2028-02-01T15:00:00Z' },
      [reader, guest],
    );
    url = (await calendar.createFeed(reader)).url;
  });
  afterAll(() => t.close());
  afterEach(() => jest.useRealTimers());

  const etagOf = (answer: IcsAnswer): string => answer.headers.get('etag') ?? '';
  /** Runs `field(input: $input)` as `user` (its input type: `<Field>Input`, as they all are). */
  const run = (field: string, input: Record<string, unknown>, user = organizer) =>
    t.gql.data(
      `mutation ($input: ${field[0]?.toUpperCase()}${field.slice(1)}Input!) ` +
        `{ ${field}(input: $input) { __typename } }`,
      { input },
      user.token,
    );

  /** The feed's statements of one request, from its request log line. */
  async function statementsOf(answer: IcsAnswer): Promise<unknown> {
    const id = answer.headers.get('x-request-id');
    // The line is written when the response closes.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return log.lines.find((line) => line['reqId'] === id)?.['sqlStatements'];
  }

  /**
   * Reads the feed, makes the change, reads it again: the document and its ETag both changed, the
   * old ETag is answered the new document and the new one 304.
   */
  async function expectNewTag(change: () => Promise<unknown>): Promise<void> {
    const before = await calendar.readFeed(url);
    await change();
    const after = await calendar.readFeed(url);
    expect(after.status).toBe(200);
    expect(after.text).not.toBe(before.text);
    expect(etagOf(after)).not.toBe(etagOf(before));
    const stale = await calendar.readFeed(url, { 'if-none-match': etagOf(before) });
    expect([stale.status, stale.text]).toEqual([200, after.text]);
    const held = await calendar.readFeed(url, { 'if-none-match': etagOf(after) });
    expect([held.status, held.text, etagOf(held)]).toEqual([304, '', etagOf(after)]);
  }

  /** Lets the service's clock (Date alone: timers and I/O run as they do) read `at`. */
  const clockAt = (at: Date | number) =>
    jest.useFakeTimers({
      now: at,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });

  it('answers a matching If-None-Match 304 in one statement, without building the document', async () => {
    const first = await calendar.readFeed(url, { 'x-request-id': 'etag-first' });
    expect(await statementsOf(first)).toBe(4);
    const held = await calendar.readFeed(url, {
      'if-none-match': `W/"other", ${etagOf(first)}`,
      'x-request-id': 'etag-held',
    });
    expect([held.status, held.text, etagOf(held)]).toEqual([304, '', etagOf(first)]);
    expect(held.headers.get('cache-control')).toBe('private, no-cache');
    expect(await statementsOf(held)).toBe(1);
    // The same data read again is the same document under the same tag.
    const again = await calendar.readFeed(url);
    expect([again.text, etagOf(again)]).toEqual([first.text, etagOf(first)]);
  });

  it('changes with an answer of a participant', async () => {
    await expectNewTag(() => calendar.act('approveMeeting', singleId, guest));
    await expectNewTag(() => calendar.act('declineMeeting', seriesId, reader));
  });

  it("changes with a participant's name, and the feed's user's", async () => {
    await expectNewTag(() => run('updateProfile', { name: 'Hermann Klaus Hugo Weyl' }, guest));
    await expectNewTag(() => run('updateProfile', { name: 'Amalie Emmy Noether' }, reader));
  });

  it("changes with a meeting's title, time zone and recurrence", async () => {
    await expectNewTag(() =>
      run('updateMeeting', { meetingId: singleId, title: 'Talk on invariants' }),
    );
    const reschedule = (fields: Record<string, unknown>) =>
      run('rescheduleMeeting', {
        meetingId: seriesId,
        startTime: '2028-01-06T09:00:00Z',
        ...fields,
      });
    await expectNewTag(() => reschedule({ timeZone: 'America/New_York' }));
    await expectNewTag(() => reschedule({ recurrence: 'FREQ=WEEKLY;COUNT=12' }));
  });

  it('changes with an occurrence cancelled or moved', async () => {
    await expectNewTag(() =>
      run('cancelOccurrence', { meetingId: seriesId, originalStartTime: '2028-01-13T09:00:00Z' }),
    );
    await expectNewTag(() =>
      run('moveOccurrence', {
        meetingId: seriesId,
        originalStartTime: '2028-01-20T09:00:00Z',
        startTime: '2028-01-20T11:00:00Z',
      }),
    );
  });

  it('changes when a meeting enters the feed or leaves it', async () => {
    let extra = '';
    await expectNewTag(async () => {
      extra = await calendar.meeting(organizer, { startTime: '2028-03-01T10:00:00Z' }, [reader]);
    });
    await expectNewTag(() => run('removeParticipant', { meetingId: extra, userId: reader.id }));
  });

  it('stays the same from one day to the next, and changes when a meeting falls behind the window', async () => {
    const ends = Date.parse('2028-02-01T16:00:00Z');
    clockAt(ends + 10 * DAY_MS);
    const early = await calendar.readFeed(url);
    clockAt(ends + 11 * DAY_MS);
    const later = await calendar.readFeed(url);
    expect([later.text, etagOf(later)]).toEqual([early.text, etagOf(early)]);
    // 90 days after the colloquium ended it leaves the feed: no row changed, the window moved.
    clockAt(ends + 91 * DAY_MS);
    const past = await calendar.readFeed(url);
    expect(past.text).not.toContain(singleId);
    expect(etagOf(past)).not.toBe(etagOf(later));
    const stale = await calendar.readFeed(url, { 'if-none-match': etagOf(later) });
    expect(stale.status).toBe(200);
  });

  it('changes with the year, whose zones the document defines', async () => {
    clockAt(Date.parse('2027-12-31T12:00:00Z'));
    const december = await calendar.readFeed(url);
    clockAt(Date.parse('2028-01-01T12:00:00Z'));
    const january = await calendar.readFeed(url);
    expect(january.text).not.toBe(december.text);
    expect(etagOf(january)).not.toBe(etagOf(december));
  });
});
