import { Webhook } from 'standardwebhooks';
import { compareCursors } from '../../src/platform/live/change-log';
import { withClient } from '../lib/db';
import type { Receipt } from '../lib/hook-receiver';
import type { Cast } from './people';
import type { Subscriber, Transport } from './subscribers';
import type { WriteRecord } from './writers';

// The fleet run checked against the primary at the end: the writes acknowledged, the changes
// logged, and what every subscriber and endpoint received.

export interface WriteCheck {
  acknowledged: number;
  /** Acknowledged, but not in the database. */
  lost: number;
  /** In the database more than once (or a retry that ran the write again). */
  duplicated: number;
  /** Never acknowledged (given up or refused); may or may not be in the database. */
  unacknowledged: number;
}

export interface EventCheck {
  subscribers: number;
  expected: number;
  received: number;
  missing: number;
  duplicated: number;
  outOfOrder: number;
  /** Received, but not a change of the subscriber's meeting. */
  wrong: number;
  connections: number;
}

export interface HookCheck {
  expected: number;
  received: number;
  missing: number;
  duplicated: number;
  badSignatures: number;
}

type Log = Map<string, string[]>;

/** The cursors logged for each of these meetings, in commit order. */
export async function loggedCursors(dbUrl: string, meetings: readonly string[]): Promise<Log> {
  const rows = await withClient(dbUrl, (client) =>
    client.query<{ meeting_id: string; cursor: string }>(
      `select "scope_id" as "meeting_id", "tx"::text || '.' || "position"::text as "cursor"
       from "change_log" where "scope_id" = any($1) order by "tx", "position"`,
      [meetings],
    ),
  );
  const log: Log = new Map();
  for (const row of rows.rows) {
    log.set(row.meeting_id, [...(log.get(row.meeting_id) ?? []), row.cursor]);
  }
  return log;
}

/** Each writer's meetings: the watched ones and those it made. */
export function meetingsOf(cast: Cast, writes: readonly WriteRecord[]): string[][] {
  const owned = cast.writers.map((_w, w) =>
    cast.watched.filter((_m, i) => i % cast.writers.length === w),
  );
  for (const write of writes) {
    const w = Number(/^fleet w(\d+) /.exec(write.value)?.[1] ?? -1);
    if (write.kind === 'create' && write.meetingId && owned[w]) {
      owned[w].push(write.meetingId);
    }
  }
  return owned;
}

export async function checkWrites(
  dbUrl: string,
  writes: readonly WriteRecord[],
  log: Log,
): Promise<WriteCheck> {
  const acked = writes.filter((write) => write.acknowledged);
  const { titles, members } = await withClient(dbUrl, async (client) => ({
    titles: new Map(
      (
        await client.query<{ title: string; n: number }>(
          `select "title", count(*)::int as "n" from "meetings" where "title" like 'fleet w%'
           group by "title"`,
        )
      ).rows.map((row) => [row.title, row.n]),
    ),
    members: new Set(
      (
        await client.query<{ member: string }>(
          `select "meeting_id" || ' ' || "user_id" as "member" from "participants"
           where "meeting_id" = any($1)`,
          [acked.filter((w) => w.kind === 'add').map((w) => w.meetingId)],
        )
      ).rows.map((row) => row.member),
    ),
  }));
  let lost = 0;
  let duplicated = writes.filter((write) => write.doubled).length;
  for (const [, n] of titles) {
    duplicated += Math.max(0, n - 1);
  }
  const updates = new Map<string, { acked: number; tried: number }>();
  for (const write of writes) {
    if (write.kind === 'create' && write.acknowledged && !titles.has(write.value)) {
      lost += 1;
    } else if (write.kind === 'add' && write.acknowledged) {
      lost += members.has(`${write.meetingId} ${write.value}`) ? 0 : 1;
    } else if (write.kind === 'update' && write.meetingId) {
      const counts = updates.get(write.meetingId) ?? { acked: 0, tried: 0 };
      counts.tried += 1;
      counts.acked += write.acknowledged ? 1 : 0;
      updates.set(write.meetingId, counts);
    }
  }
  // A watched meeting's changes are its updates alone: one logged change each.
  for (const [meetingId, { acked: n, tried }] of updates) {
    const logged = log.get(meetingId)?.length ?? 0;
    lost += Math.max(0, n - logged);
    duplicated += Math.max(0, logged - tried);
  }
  return {
    acknowledged: acked.length,
    lost,
    duplicated,
    unacknowledged: writes.length - acked.length,
  };
}

/** What the subscribers of one transport received against their meetings' logged changes. */
export function checkEvents(
  subscribers: readonly Subscriber[],
  watched: ReadonlyMap<Subscriber, string>,
  log: Log,
  transport: Transport,
): EventCheck {
  const check: EventCheck = {
    subscribers: 0,
    expected: 0,
    received: 0,
    missing: 0,
    duplicated: 0,
    outOfOrder: 0,
    wrong: 0,
    connections: 0,
  };
  for (const subscriber of subscribers.filter((s) => s.transport === transport)) {
    const expected = log.get(watched.get(subscriber) ?? '') ?? [];
    const received = new Set(subscriber.received);
    check.subscribers += 1;
    check.expected += expected.length;
    check.received += subscriber.received.length;
    check.missing += expected.filter((cursor) => !received.has(cursor)).length;
    check.wrong += subscriber.received.filter((cursor) => !expected.includes(cursor)).length;
    check.duplicated += subscriber.duplicates;
    check.outOfOrder += subscriber.outOfOrder;
    check.connections += subscriber.connections;
  }
  return check;
}

/** Every receipt answered: signed by its endpoint's secret, each change once, none missing. */
export function checkHooks(
  receipts: readonly Receipt[],
  secrets: readonly string[],
  expected: readonly string[][],
): HookCheck {
  const verifiers = secrets.map((secret) => new Webhook(secret));
  const seen = secrets.map(() => new Map<string, number>());
  const ids = new Map<string, number>();
  let badSignatures = 0;
  for (const receipt of receipts) {
    const id = String(receipt.headers['webhook-id']);
    ids.set(id, (ids.get(id) ?? 0) + 1);
    let body: { data: { cursor: string } };
    try {
      body = verifiers[receipt.endpoint]?.verify(
        receipt.raw,
        receipt.headers as Record<string, string>,
      ) as typeof body;
    } catch {
      badSignatures += 1;
      body = JSON.parse(receipt.raw) as typeof body;
    }
    const atEndpoint = seen[receipt.endpoint];
    atEndpoint?.set(body.data.cursor, (atEndpoint.get(body.data.cursor) ?? 0) + 1);
  }
  const extra = (counts: Iterable<number>): number =>
    [...counts].reduce((n, count) => n + Math.max(0, count - 1), 0);
  return {
    expected: expected.reduce((n, list) => n + list.length, 0),
    received: receipts.length,
    missing: expected.reduce(
      (n, list, e) => n + list.filter((cursor) => !seen[e]?.has(cursor)).length,
      0,
    ),
    duplicated: Math.max(
      extra(ids.values()),
      seen.reduce((n, atEndpoint) => n + extra(atEndpoint.values()), 0),
    ),
    badSignatures,
  };
}

/** The cursors each endpoint must receive: the changes of its writer's meetings. */
export function expectedHooks(owned: readonly string[][], log: Log): string[][] {
  return owned.map((meetings) =>
    meetings.flatMap((id) => log.get(id) ?? []).sort((a, b) => compareCursors(a, b)),
  );
}
