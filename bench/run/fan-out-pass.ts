import { signAccessToken } from '../lib/jwt';
import { sampleRss, type Server } from '../lib/processes';
import {
  fanOutSection,
  type FanOutReport,
  type FanOutRound,
  type FanOutSlow,
  writeFanOut,
} from '../lib/report-fan-out';
import { quantile } from '../lib/stats';
import { fanOutMeter } from './fan-out-cost';
import { checkRound, closedSummary, type Listener, roundProblems } from './fan-out-check';
import {
  burstWrites,
  type Cast,
  castOf,
  cleanupFanOut,
  FAN_OUT,
  loggedCursors,
  makeMeetings,
  pacedWrites,
  type RoundSpec,
  type Write,
} from './fan-out-setup';
import { slowStart, type SlowStart } from './fan-out-slow';
import { FanOutSubscriber, type Transport } from './fan-out-subscriber';
import { CONNECT_BATCH, untilActive } from './live-clients';
import { fmt, log, status } from './progress';
import { KEYS, startService, TOKENS } from './targets';

/*
 * The fan-out pass (--fan-out, --fan-out-only): `myMeetingEvents` subscribers under write load.
 * The service hands each change only to the subscribers who may see it (its audience relay), so
 * the cost of a change should not grow with subscribers who may not. Two rounds, each on a service
 * of its own: the writers and their meetings' guests subscribed, beside 100 (a) and 1,000 (b)
 * uninvolved subscribers, half over WebSocket, half over SSE; the writers update their meetings at
 * a steady pace. Checked: every change reached each who may see it once, in order, nothing reached
 * the others, nobody was closed but the slow subscriber of round b (run/fan-out-slow.ts), which
 * must resume without loss. Measured: delivery latency, the service's CPU per event delivered.
 */

/** The service's SUBSCRIPTION_QUEUE_SIZE: its default (src/platform/live/live.settings.ts). */
const QUEUE_SIZE = 'default (100)';

/** The round's subscribers, split half and half over the two transports within each group. */
function listenersOf(service: Server, cast: Cast, uninvolved: number): Listener[] {
  let n = 0;
  const next = (): Transport => (n++ % 2 === 0 ? 'websocket' : 'sse');
  const listener = (userId: string, meetings: number[]): Listener => ({
    subscriber: new FanOutSubscriber(service, userId, next()),
    meetings,
  });
  return [
    ...cast.writers.map((userId, i) => listener(userId, [i])),
    ...cast.guests.flatMap((guests, i) => guests.map((userId) => listener(userId, [i]))),
    ...cast.uninvolved.slice(0, uninvolved).map((userId) => listener(userId, [])),
  ];
}

async function connect(service: Server, listeners: readonly Listener[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < listeners.length; i += CONNECT_BATCH) {
    for (const { subscriber } of listeners.slice(i, i + CONNECT_BATCH)) {
      subscriber.open();
    }
    await untilActive(service, Math.min(i + CONNECT_BATCH, listeners.length));
  }
  return (performance.now() - started) / 1000;
}

const spread = (sorted: Float64Array) => ({
  p50: quantile(sorted, 0.5),
  p99: quantile(sorted, 0.99),
  max: sorted[sorted.length - 1] ?? Number.NaN,
});

/** One round: its meetings, a service, the subscribers, the slow one if any, the writes, checks. */
async function round(
  dbUrl: string,
  cast: Cast,
  spec: RoundSpec,
  seconds: number,
): Promise<{ row: FanOutRound; slow: FanOutSlow | null }> {
  await cleanupFanOut(dbUrl);
  const meetings = await makeMeetings(dbUrl, cast, spec.slow);
  const service = await startService(dbUrl, 'warn', { name: `service (fan-out ${spec.key})` });
  const rss = sampleRss(service.child.pid as number);
  const listeners = listenersOf(service, cast, spec.uninvolved);
  let slow: SlowStart | null = null;
  try {
    log(`  round ${spec.key}: connecting ${fmt(listeners.length)} subscribers…`);
    const connectSeconds = await connect(service, listeners);
    const tokens = cast.writers.map((id) => signAccessToken(KEYS, TOKENS, id));
    // Every round begins with the burst to meeting 1 (it warms the service up, so that the
    // rounds' write phases meet it alike); in round b the slow subscriber stops reading during it.
    let burst: Write[];
    if (spec.slow) {
      slow = await slowStart(
        dbUrl,
        service,
        { userId: cast.slow, ownerToken: tokens[0] as string },
        meetings,
        listeners.length,
        spec.key,
      );
      burst = slow.burst;
      listeners.push({ subscriber: slow.subscriber, meetings: [0], slow: true });
    } else {
      burst = await burstWrites(service, tokens[0] as string, meetings, 0, spec.key);
    }
    await new Promise((resolve) => setTimeout(resolve, FAN_OUT.settleMs));
    log(
      `  round ${spec.key}: ${fmt(listeners.length)} subscribers connected in ` +
        `${connectSeconds.toFixed(1)} s; ${FAN_OUT.writesPerSecond} writes/s for ${seconds} s…`,
    );
    const meter = await fanOutMeter(dbUrl, service.child.pid as number);
    const paced = await pacedWrites(service, tokens, meetings, spec.key, seconds, (written) =>
      status(`fan-out · round ${spec.key}: ${fmt(written)} writes`),
    );
    await new Promise((resolve) => setTimeout(resolve, FAN_OUT.drainMs));
    const cost = meter.stop();
    const writes = [...burst, ...paced];
    const logged = await loggedCursors(dbUrl, meetings);
    const check = checkRound(listeners, meetings, logged, writes);
    const problems = roundProblems(check).map((p) => `round ${spec.key}: ${p}`);
    const count = (transport: Transport) =>
      listeners.filter((l) => l.subscriber.transport === transport).length;
    const row: FanOutRound = {
      key: spec.key,
      subscribers: {
        websocket: count('websocket'),
        sse: count('sse'),
        uninvolved: spec.uninvolved,
        involved: cast.guests.flat().length,
        writers: cast.writers.length,
        slow: slow ? 1 : 0,
      },
      connectSeconds,
      writes: {
        paced: paced.length,
        burst: burst.length,
        seconds,
        answer: spread(Float64Array.from(paced, (w) => w.answeredAt - w.sentAt).sort()),
      },
      events: {
        expected: check.expected,
        delivered: check.delivered,
        lost: check.lost,
        doubled: check.doubled,
        outOfOrder: check.outOfOrder,
        foreign: check.foreign,
        uninvolvedReceived: check.uninvolvedReceived,
        olderTitle: check.olderTitle,
        laterTitle: check.laterTitle,
        inPhase: check.deliveredInPhase,
      },
      closed: check.closed.length,
      closedHow: closedSummary(check.closed),
      latency: spread(check.latencies),
      cost,
      cpuUsPerEvent: (cost.nodeMs * 1000) / check.deliveredInPhase,
      peakRss: rss.stop(),
      problems,
    };
    log(
      `  round ${spec.key}: ${fmt(check.delivered)} of ${fmt(check.expected)} events delivered, ` +
        `${check.lost} lost, ${check.doubled} doubled, ${check.closed.length} closed; ` +
        `p50 ${check.latencies.length ? quantile(check.latencies, 0.5).toFixed(1) : '–'} ms; ` +
        `${row.cpuUsPerEvent.toFixed(0)} µs CPU per event`,
    );
    return { row, slow: slow && slowReport(spec.key, slow, meetings, logged) };
  } finally {
    rss.stop();
    for (const { subscriber } of listeners) {
      subscriber.leave();
    }
    await service.stop();
    await cleanupFanOut(dbUrl);
  }
}

/** The slow subscriber's own count: its meeting's changes, what it received, its close. */
function slowReport(
  key: string,
  slow: SlowStart,
  meetings: readonly string[],
  logged: ReadonlyMap<string, readonly string[]>,
): FanOutSlow {
  const { subscriber } = slow;
  const owed = logged.get(meetings[0] as string) ?? [];
  const cursors = subscriber.receipts.map((receipt) => receipt.cursor);
  const got = new Set(cursors);
  const delivered = owed.filter((cursor) => got.has(cursor)).length;
  return {
    round: key,
    closedWith: subscriber.closes[0] ?? 'not closed',
    closedAfterMs: slow.closedAfterMs,
    receivedBeforeClose: slow.receivedBeforeClose,
    resumedAfter: subscriber.resumedAfter,
    expected: owed.length,
    delivered,
    lost: owed.length - delivered,
    doubled: cursors.length - got.size,
    burst: slow.burst.length,
    burstSeconds: slow.burstSeconds,
    eventBytes: FAN_OUT.descriptionChars * FAN_OUT.descriptionAliases,
  };
}

/** The slow subscriber's own failures: not closed with 1013, not resumed, anything lost. */
function slowProblems(slow: FanOutSlow | null, expected: boolean): string[] {
  if (!slow) {
    return expected ? ['the slow subscriber did not run'] : [];
  }
  return [
    ...(slow.closedWith === '1013'
      ? []
      : [`slow subscriber closed with ${slow.closedWith}, not 1013`]),
    ...(slow.resumedAfter.length === 1 && slow.resumedAfter[0] !== null
      ? []
      : [
          `slow subscriber resumed ${slow.resumedAfter.length} times, after ${slow.resumedAfter.join(', ')}`,
        ]),
    ...(slow.lost > 0 ? [`slow subscriber lost ${slow.lost} events`] : []),
    ...(slow.doubled > 0 ? [`slow subscriber received ${slow.doubled} events twice`] : []),
  ];
}

/** Both rounds; the report (its `problems` empty unless something failed). */
export async function fanOutPass(dbUrl: string, quick: boolean): Promise<FanOutReport> {
  const started = Date.now();
  const seconds = quick ? FAN_OUT.quickSeconds : FAN_OUT.seconds;
  const cast = await castOf(dbUrl);
  const rows: FanOutRound[] = [];
  let slow: FanOutSlow | null = null;
  for (const spec of FAN_OUT.rounds) {
    const done = await round(dbUrl, cast, spec, seconds);
    rows.push(done.row);
    slow = done.slow ?? slow;
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    startedAt: new Date(started).toISOString(),
    seconds: (Date.now() - started) / 1000,
    quick,
    settings: {
      writers: FAN_OUT.writers,
      guestsPerMeeting: FAN_OUT.guestsPerMeeting,
      writesPerSecond: FAN_OUT.writesPerSecond,
      writeSeconds: seconds,
      drainMs: FAN_OUT.drainMs,
      queueSize: QUEUE_SIZE,
    },
    rounds: rows,
    ratio: first && last ? last.cpuUsPerEvent / first.cpuUsPerEvent : Number.NaN,
    slow,
    problems: [
      ...rows.flatMap((row) => row.problems),
      ...slowProblems(
        slow,
        FAN_OUT.rounds.some((spec) => spec.slow),
      ),
    ],
  };
}

/**
 * The pass as `npm run bench` runs it: both rounds, bench/results/fan-out.md written (`command`
 * named in it) and printed; throws when anything was lost or doubled or someone closed.
 */
export async function fanOutRun(dbUrl: string, quick: boolean, command: string): Promise<void> {
  log('Fan-out: myMeetingEvents subscribers under write load, two rounds…');
  const report = await fanOutPass(dbUrl, quick);
  const path = writeFanOut(report, command);
  log(`\n${fanOutSection(report).join('\n')}\n`);
  log(`Written ${path}.`);
  if (report.problems.length > 0) {
    throw new Error(`the fan-out pass failed: ${report.problems.join('; ')}`);
  }
}
