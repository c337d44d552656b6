import { Webhook } from 'standardwebhooks';
import {
  CALENDAR_SIZE,
  type CalendarMeeting,
  occurrenceDays,
  planCalendar,
} from '../../bench/lib/calendar-plan';
import type { Receipt } from '../../bench/lib/hook-receiver';
import { FrontendReader } from '../../bench/lib/statement-proxy';
import { checkReceipts } from '../../bench/run/webhook-receipts';

// The bench's own logic behind the calendar-feed, webhook-deliveries and resume scenarios: the
// calendar plan, the check of webhook receipts, and the statement-counting proxy's reading of
// the PostgreSQL protocol.

describe('the calendar-feed plan', () => {
  it('plans the same 200 meetings every time, 80 owned by the feed user and 50 series', () => {
    const plan = planCalendar();
    expect(planCalendar()).toEqual(plan);
    expect(plan).toHaveLength(CALENDAR_SIZE.meetings);
    expect(plan.filter((m) => m.owner === 0)).toHaveLength(CALENDAR_SIZE.owned);
    expect(plan.filter((m) => m.series !== null)).toHaveLength(CALENDAR_SIZE.series);
    // Invited meetings invite the feed user; its own invite colleagues.
    expect(plan.every((m) => m.owner === 0 || m.guests.some((g) => g.member === 0))).toBe(true);
  });

  it('starts every series on an occurrence of its rule (the API refuses any other start)', () => {
    for (const meeting of planCalendar().filter((m) => m.series?.freq === 'WEEKLY')) {
      expect(meeting.series?.weekdays).toContain(meeting.day % 7);
    }
  });

  it('expands a rule to the days a calendar shows', () => {
    const base = { day: 3, series: null } as unknown as CalendarMeeting;
    const weekly = (weekdays: number[], interval = 1) =>
      ({ ...base, series: { freq: 'WEEKLY', interval, weekdays, count: null } }) as CalendarMeeting;
    // Thursday 3 of a twice-a-week rule (TU, TH): then Tuesday and Thursday of the next weeks.
    expect(occurrenceDays(weekly([1, 3]), 4)).toEqual([3, 8, 10, 15]);
    expect(occurrenceDays(weekly([3], 2), 3)).toEqual([3, 17, 31]);
    const daily = { ...base, series: { freq: 'DAILY', interval: 1, weekdays: [], count: 10 } };
    expect(occurrenceDays(daily as CalendarMeeting, 3)).toEqual([3, 4, 5]);
    expect(occurrenceDays(base, 1)).toEqual([3]);
  });
});

describe('the webhook receipts check', () => {
  const secrets = [
    'whsec_' + Buffer.from('a'.repeat(32)).toString('base64'),
    'whsec_' + Buffer.from('b'.repeat(32)).toString('base64'),
  ];
  let at = 0;
  /** A receipt at `endpoint` of the change `cursor`, signed with that endpoint's secret. */
  const receipt = (endpoint: number, cursor: string, id = `${endpoint}-${cursor}`): Receipt => {
    const raw = JSON.stringify({
      type: 'meeting.updated',
      timestamp: new Date().toISOString(),
      data: { meetingId: 'm', cursor },
    });
    const sentAt = new Date();
    const signature = new Webhook(secrets[endpoint] as string).sign(id, sentAt, raw);
    at += 1;
    return {
      endpoint,
      raw,
      headers: {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signature,
      },
      at,
      from: '127.0.0.1',
      wallAt: Date.now(),
    };
  };
  // Positions 1, 5 and 1: one lane of an endpoint's four (webhook.jobs.ts laneOf), where
  // attempts keep commit order.
  const cursors = ['10.1', '10.5', '11.1'];
  const all = () => cursors.flatMap((cursor) => [receipt(0, cursor), receipt(1, cursor)]);

  it('finds nothing wrong when every change reached every endpoint once, in order', () => {
    const { check, bodies } = checkReceipts(all(), secrets, cursors);
    expect(check).toEqual({
      expected: 6,
      received: 6,
      duplicates: 0,
      missing: 0,
      badSignatures: 0,
      outOfOrder: 0,
    });
    expect(bodies.map((b) => b.data.cursor)).toEqual([
      '10.1',
      '10.1',
      '10.5',
      '10.5',
      '11.1',
      '11.1',
    ]);
  });

  it('counts a delivery received twice, one missing, one out of order and a bad signature', () => {
    const receipts = all();
    const tampered = {
      ...receipts[5],
      raw: (receipts[5] as Receipt).raw.replace('updated', 'removed'),
    } as Receipt;
    const { check } = checkReceipts(
      [receipts[0], receipts[0], receipts[4], receipts[2], receipts[3], tampered] as Receipt[],
      secrets,
      cursors,
    );
    expect(check.duplicates).toBe(1);
    // Endpoint 1 never got 10.1.
    expect(check.missing).toBe(1);
    // Endpoint 0 got 10.5 after 11.1, in the same lane.
    expect(check.outOfOrder).toBe(1);
    expect(check.badSignatures).toBe(1);
  });
});

describe('the statement-counting proxy', () => {
  const message = (type: string, body: Buffer): Buffer => {
    const header = Buffer.alloc(5);
    header.write(type, 0, 'latin1');
    header.writeInt32BE(body.length + 4, 1);
    return Buffer.concat([header, body]);
  };
  const z = (...texts: string[]): Buffer => Buffer.from(texts.map((t) => `${t}\0`).join(''));
  const startup = (params: Record<string, string>): Buffer => {
    const body = Buffer.concat([z(...Object.entries(params).flat()), Buffer.from([0])]);
    const head = Buffer.alloc(8);
    head.writeInt32BE(body.length + 8, 0);
    head.writeInt32BE(196608, 4);
    return Buffer.concat([head, body]);
  };
  const sslRequest = (): Buffer => {
    const b = Buffer.alloc(8);
    b.writeInt32BE(8, 0);
    b.writeInt32BE(80877103, 4);
    return b;
  };

  it("counts simple queries and executions of prepared statements by the connection's name", () => {
    const seen: string[] = [];
    const reader = new FrontendReader((name, sql) => seen.push(`${name}: ${sql}`));
    const stream = Buffer.concat([
      sslRequest(),
      startup({ user: 'postgres', database: 'bench', application_name: 'listener' }),
      message('Q', z('listen change_log')),
      message('P', Buffer.concat([z('s1', 'select $1::int'), Buffer.alloc(2)])),
      message('B', Buffer.concat([z('', 's1'), Buffer.alloc(6)])),
      message('E', Buffer.concat([z(''), Buffer.alloc(4)])),
      message('S', Buffer.alloc(0)),
      message('B', Buffer.concat([z('', 's1'), Buffer.alloc(6)])),
      message('E', Buffer.concat([z(''), Buffer.alloc(4)])),
      message('Q', z('BEGIN')),
    ]);
    // Byte by byte: messages split anywhere are put together again.
    for (const byte of stream) {
      reader.read(Buffer.from([byte]));
    }
    expect(reader.applicationName).toBe('listener');
    expect(seen).toEqual([
      'listener: listen change_log',
      'listener: select $1::int',
      'listener: select $1::int',
      'listener: BEGIN',
    ]);
  });
});
