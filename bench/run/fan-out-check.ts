import { compareCursors } from '../../src/platform/live/change-log';
import type { Write } from './fan-out-setup';
import type { FanOutSubscriber } from './fan-out-subscriber';

// What the fan-out pass's subscribers received, against what they had to: every change of each
// meeting they may see (the change log's, which must hold one change per write answered), once,
// in order, and nothing else; the delivery latency of the write phase's changes.

/** A subscriber with the meetings (indexes) it may see: none for an uninvolved one. */
export interface Listener {
  subscriber: FanOutSubscriber;
  meetings: readonly number[];
  /** The slow subscriber: its one close (1013) is expected. */
  slow?: boolean;
}

export interface RoundCheck {
  /** Changes logged for each meeting that are not one for each write answered, described. */
  unlogged: string[];
  /** Events owed to the subscribers who may see them (each change, to each of them). */
  expected: number;
  /** Of those, received (once or more). */
  delivered: number;
  lost: number;
  /** Events received again (same cursor, same subscriber). */
  doubled: number;
  outOfOrder: number;
  /** Events of a meeting the subscriber may not see, or not an UPDATED of a logged change. */
  foreign: number;
  /** Events received by uninvolved subscribers (must be 0). */
  uninvolvedReceived: number;
  /**
   * Events of the write phase whose meeting showed a title older than its own change's write
   * (must be 0), or a later one (the meeting as read when the change reached the service).
   */
  olderTitle: number;
  laterTitle: number;
  /** Subscribers the service closed (the slow one not counted), and how. */
  closed: { userId: string; how: string[] }[];
  /** Errors subscribers heard, with who heard them. */
  errors: string[];
  /** ms from each write phase change's write answered to its receipt, by every subscriber, sorted. */
  latencies: Float64Array;
  /** Receipts of the write phase's changes (distinct), what the CPU time is divided by. */
  deliveredInPhase: number;
}

/** Where each logged change came from: its meeting and the write that made it. */
interface Origin {
  meeting: number;
  index: number;
  write: Write;
}

/**
 * Each logged change's write: a meeting's paced writes never overlap (one writer each, one write
 * at a time, after the burst's, if any, all answered), so its k-th change in log order is its k-th
 * write answered; of a burst's, only that it is one of them.
 */
function origins(
  meetings: readonly string[],
  logged: ReadonlyMap<string, readonly string[]>,
  writes: readonly Write[],
  unlogged: string[],
): Map<string, Origin> {
  const byCursor = new Map<string, Origin>();
  meetings.forEach((meetingId, meeting) => {
    const own = writes
      .filter((w) => w.meeting === meeting)
      .sort((a, b) => a.answeredAt - b.answeredAt);
    const cursors = logged.get(meetingId) ?? [];
    if (cursors.length !== own.length) {
      unlogged.push(
        `meeting ${meeting + 1}: ${own.length} writes answered, ${cursors.length} changes logged`,
      );
    }
    cursors.forEach((cursor, index) => {
      const write = own[index];
      if (write) {
        byCursor.set(cursor, { meeting, index, write });
      }
    });
  });
  return byCursor;
}

export function checkRound(
  listeners: readonly Listener[],
  meetings: readonly string[],
  logged: ReadonlyMap<string, readonly string[]>,
  writes: readonly Write[],
): RoundCheck {
  const unlogged: string[] = [];
  const byCursor = origins(meetings, logged, writes, unlogged);
  const titleIndex = new Map<string, number>();
  meetings.forEach((_, meeting) => {
    writes
      .filter((w) => w.meeting === meeting)
      .sort((a, b) => a.answeredAt - b.answeredAt)
      .forEach((w, index) => titleIndex.set(w.title, index));
  });
  const check: Omit<RoundCheck, 'latencies'> = {
    unlogged,
    expected: 0,
    delivered: 0,
    lost: 0,
    doubled: 0,
    outOfOrder: 0,
    foreign: 0,
    uninvolvedReceived: 0,
    olderTitle: 0,
    laterTitle: 0,
    closed: [],
    errors: [],
    deliveredInPhase: 0,
  };
  const latencies: number[] = [];
  for (const { subscriber, meetings: visible, slow } of listeners) {
    const mine = new Set(visible);
    const seen = new Set<string>();
    let previous: string | null = null;
    if (visible.length === 0) {
      check.uninvolvedReceived += subscriber.receipts.length;
    }
    for (const receipt of subscriber.receipts) {
      if (seen.has(receipt.cursor)) {
        check.doubled += 1;
        continue;
      }
      seen.add(receipt.cursor);
      if (previous !== null && compareCursors(receipt.cursor, previous) < 0) {
        check.outOfOrder += 1;
      }
      previous = receipt.cursor;
      const origin = byCursor.get(receipt.cursor);
      if (
        !origin ||
        !mine.has(origin.meeting) ||
        receipt.meetingId !== meetings[origin.meeting] ||
        receipt.kind !== 'UPDATED'
      ) {
        check.foreign += 1;
        continue;
      }
      // A burst's writes overlap: which of its changes is which write is not known.
      if (!origin.write.burst) {
        const shown = titleIndex.get(receipt.title);
        if (shown === undefined || shown < origin.index) {
          check.olderTitle += 1;
        } else if (shown > origin.index) {
          check.laterTitle += 1;
        }
        check.deliveredInPhase += 1;
        latencies.push(receipt.at - origin.write.answeredAt);
      }
    }
    for (const meeting of visible) {
      const owed = logged.get(meetings[meeting] as string) ?? [];
      const got = owed.filter((cursor) => seen.has(cursor)).length;
      check.expected += owed.length;
      check.delivered += got;
      check.lost += owed.length - got;
    }
    const closes = slow ? subscriber.closes.slice(1) : subscriber.closes;
    if (closes.length > 0) {
      check.closed.push({ userId: subscriber.userId, how: closes });
    }
    check.errors.push(...subscriber.errors.map((error) => `${subscriber.userId}: ${error}`));
  }
  return { ...check, latencies: Float64Array.from(latencies).sort() };
}

/** What makes a round fail: anything lost, doubled, misdelivered, or a subscriber closed. */
export function roundProblems(check: RoundCheck): string[] {
  const problems = [...check.unlogged];
  const count = (n: number, what: string) => (n > 0 ? [`${n} ${what}`] : []);
  problems.push(
    ...count(check.lost, 'events lost'),
    ...count(check.doubled, 'events doubled'),
    ...count(check.outOfOrder, 'events out of order'),
    ...count(check.foreign, 'events of meetings not the subscriber’s, or of no write'),
    ...count(check.uninvolvedReceived, 'events received by uninvolved subscribers'),
    ...count(check.olderTitle, 'events showing a title older than their write'),
    ...count(check.closed.length, `subscribers closed (${closedSummary(check.closed)})`),
    ...count(check.errors.length, `errors (first: ${check.errors[0] ?? ''})`),
  );
  return problems;
}

/** Closes by how, e.g. "1013 ×2, stream end ×1". */
export function closedSummary(closed: RoundCheck['closed']): string {
  const counts = new Map<string, number>();
  for (const how of closed.flatMap((c) => c.how)) {
    counts.set(how, (counts.get(how) ?? 0) + 1);
  }
  return [...counts].map(([how, n]) => `${how} ×${n}`).join(', ') || 'none';
}
