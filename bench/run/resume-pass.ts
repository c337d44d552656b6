import { type Cost, costMeter, sampleRss } from '../lib/processes';
import { terminateListener, untilActive } from './live-clients';
import { fmt, log, status } from './progress';
import {
  type Changes,
  loggedCursors,
  RESUME,
  stage,
  type Stage,
  unstage,
  writeChanges,
} from './resume-setup';
import type { Subscriber } from './resume-subscriber';

/*
 * The resume scenario: 1,000 users each hold a WebSocket with a `myMeetingEvents` subscription;
 * they are the guests of 50 meetings (20 each) of one owner. Every subscriber keeps the cursor of
 * the last event it received and, when its socket closes (the service closes a subscriber that
 * does not keep up, 1013), opens a new one with `after: <that cursor>`, as a client that must
 * not miss events does. Two phases, each timed until every subscriber has every event of its
 * meeting that the phase made (from the change log), none twice:
 *   - listener cut: the service's event-listener connection is terminated on the server and the
 *     meetings are changed at once (updateMeeting, four writers), while it reconnects;
 *   - clients resume: every subscriber closes its socket, the meetings are changed meanwhile,
 *     then all 1,000 reconnect at once with their cursors (the missed events are replayed).
 * On another start behind the statement-counting proxy, the SQL statements per event delivered.
 */

/** What one phase found. */
export interface ResumePhase {
  changes: number;
  /** Events the subscribers must receive (each change, to each guest of its meeting). */
  expected: number;
  delivered: number;
  missing: number;
  duplicates: number;
  outOfOrder: number;
  wrong: number;
  /** From the phase's start to the last subscriber having every event (NaN: not all did). */
  seconds: number;
  /** The same for each subscriber, ms, sorted. */
  caughtUp: Float64Array;
  /** Sockets the service closed during the phase, by code (1013: a subscriber not keeping up). */
  closes: Record<string, number>;
  cost: Cost;
}

/**
 * One phase: `start` (cut the listener, or bring the subscribers back) at t0, `write` the
 * changes around it; then waits until every subscriber has each of its meeting's new changes.
 */
export async function phase(
  s: Stage,
  label: string,
  steps: { before?: () => Promise<void>; start: () => Promise<void> | void; writeFirst: boolean },
  changes: Changes,
): Promise<ResumePhase> {
  const known = new Set([...(await loggedCursors(s)).values()].flat());
  const counters = s.subscribers.map((x) => ({
    duplicates: x.duplicates,
    outOfOrder: x.outOfOrder,
    wrong: x.wrong,
    closes: new Map(x.closes),
  }));
  await steps.before?.();
  let written = 0;
  if (steps.writeFirst) {
    written = await writeChanges(s, changes, label);
  }
  const meter = costMeter(s.service.child.pid as number);
  const t0 = performance.now();
  await steps.start();
  if (!steps.writeFirst) {
    written = await writeChanges(s, changes, label);
  }
  const cursors = await loggedCursors(s);
  const expected = s.subscribers.map((x) =>
    (cursors.get(x.meetingId) ?? []).filter((cursor) => !known.has(cursor)),
  );
  const total = expected.reduce((n, list) => n + list.length, 0);
  const receivedOf = (i: number) =>
    (expected[i] as string[]).filter((c) => s.subscribers[i]?.arrivals.has(c)).length;
  const deadline = performance.now() + RESUME.catchUpMs;
  let delivered = 0;
  while (performance.now() < deadline) {
    delivered = s.subscribers.reduce((n, _x, i) => n + receivedOf(i), 0);
    status(`resume · ${label}: ${fmt(delivered)} of ${fmt(total)} events delivered…`);
    if (delivered === total) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const cost = meter.stop();
  const caughtUp = s.subscribers.map((x, i) => {
    const list = expected[i] as string[];
    const times = list.map((c) => x.arrivals.get(c));
    return times.every((t) => t !== undefined)
      ? Math.max(t0, ...(times as number[])) - t0
      : Number.NaN;
  });
  const closes: Record<string, number> = {};
  s.subscribers.forEach((x, i) => {
    for (const [code, n] of x.closes) {
      const extra = n - (counters[i]?.closes.get(code) ?? 0);
      if (extra > 0) {
        closes[String(code)] = (closes[String(code)] ?? 0) + extra;
      }
    }
  });
  const sum = (of: (x: Subscriber, i: number) => number) =>
    s.subscribers.reduce((n, x, i) => n + of(x, i), 0);
  const all = caughtUp.every((t) => Number.isFinite(t));
  const result: ResumePhase = {
    changes: written,
    expected: total,
    delivered,
    missing: total - delivered,
    duplicates: sum((x, i) => x.duplicates - (counters[i]?.duplicates ?? 0)),
    outOfOrder: sum((x, i) => x.outOfOrder - (counters[i]?.outOfOrder ?? 0)),
    wrong: sum((x, i) => x.wrong - (counters[i]?.wrong ?? 0)),
    seconds: all ? Math.max(...caughtUp) / 1000 : Number.NaN,
    caughtUp: Float64Array.from(caughtUp.filter((t) => Number.isFinite(t))).sort(),
    closes,
    cost,
  };
  status(
    `resume · ${label}: ${fmt(result.delivered)} of ${fmt(total)} events, all caught up in ` +
      `${Number.isFinite(result.seconds) ? `${result.seconds.toFixed(1)} s` : '– (some never did)'}` +
      `; ${result.missing} missed, ${result.duplicates} twice` +
      (closes['1013'] ? `; ${closes['1013']} sockets closed for not keeping up` : ''),
    true,
  );
  return result;
}

/** The two phases' steps: cut the listener as the writes begin; resume after writes made away. */
export function listenerCut(s: Stage): Parameters<typeof phase>[2] {
  return {
    start: async () => {
      await terminateListener(s.dbUrl);
    },
    writeFirst: false,
  };
}

function clientsResume(s: Stage): Parameters<typeof phase>[2] {
  return {
    before: async () => {
      await Promise.all(s.subscribers.map((x) => x.leave()));
      await untilActive(s.service, 0, 'down');
    },
    start: () => {
      for (const x of s.subscribers) {
        x.open();
      }
    },
    writeFirst: true,
  };
}

export interface ResumeRun {
  subscribers: number;
  meetings: number;
  connectSeconds: number;
  listenerCut: ResumePhase;
  clientsResume: ResumePhase;
  /** The service's largest RSS over the run (bytes). */
  peakRss: number;
}

/** Both phases on a service started here (of `root`, if given). */
export async function timeResume(
  dbUrl: string,
  perMeeting: number,
  build: { root?: string; name?: string } = {},
): Promise<ResumeRun> {
  const s = await stage(dbUrl, dbUrl, { logLevel: 'warn', ...build });
  const rss = sampleRss(s.service.child.pid as number);
  try {
    log(
      `  resume: ${s.subscribers.length} subscribers connected in ${s.connectSeconds.toFixed(1)} s`,
    );
    const changes = { perMeeting, meetings: s.meetings.length };
    const cut = await phase(s, 'listener cut', listenerCut(s), changes);
    const back = await phase(s, 'clients resume', clientsResume(s), changes);
    return {
      subscribers: s.subscribers.length,
      meetings: s.meetings.length,
      connectSeconds: s.connectSeconds,
      listenerCut: cut,
      clientsResume: back,
      peakRss: rss.stop(),
    };
  } finally {
    rss.stop();
    await unstage(s);
  }
}
