import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { int, mib, ms } from './format';
import { RESULTS } from './paths';
import type { RoundCheck } from '../run/fan-out-check';

// The fan-out pass's report (run/fan-out-pass.ts): bench/results/fan-out.md.

/** One round of the pass: its subscribers, writes, what they received, and what it cost. */
export interface FanOutRound {
  key: string;
  subscribers: {
    websocket: number;
    sse: number;
    uninvolved: number;
    involved: number;
    writers: number;
    /** The slow subscriber (WebSocket, counted in `websocket` too). */
    slow: number;
  };
  connectSeconds: number;
  /** The write phase's writes (and the burst's), and the paced writes' response times (ms). */
  writes: {
    paced: number;
    burst: number;
    seconds: number;
    answer: { p50: number; p99: number; max: number };
  };
  events: Pick<
    RoundCheck,
    | 'expected'
    | 'delivered'
    | 'lost'
    | 'doubled'
    | 'outOfOrder'
    | 'foreign'
    | 'uninvolvedReceived'
    | 'olderTitle'
    | 'laterTitle'
  > & {
    /** Deliveries of the write phase's changes: what the CPU time is divided by. */
    inPhase: number;
  };
  /** Subscribers the service closed, the slow one not counted; how (close codes). */
  closed: number;
  closedHow: string;
  /** ms from the write's answer to the event's arrival, over the write phase's deliveries. */
  latency: { p50: number; p99: number; max: number };
  /**
   * Over the write phase and the wait after it (ms): the service's CPU, its PostgreSQL server's,
   * the harness's; the cores everything else on the machine kept busy.
   */
  cost: { nodeMs: number; databaseMs: number; harnessMs: number; otherCores: number };
  cpuUsPerEvent: number;
  peakRss: number;
  problems: string[];
}

/** The slow subscriber of round b. */
export interface FanOutSlow {
  round: string;
  closedWith: string;
  closedAfterMs: number;
  receivedBeforeClose: number;
  /** Connections after the first, and the cursor each resumed after. */
  resumedAfter: (string | null)[];
  expected: number;
  delivered: number;
  lost: number;
  doubled: number;
  burst: number;
  /** Seconds the burst's writes took (from its pause). */
  burstSeconds: number;
  /** Bytes of one of its events' description fields together (the rest is small). */
  eventBytes: number;
}

export interface FanOutReport {
  startedAt: string;
  seconds: number;
  quick: boolean;
  settings: {
    writers: number;
    guestsPerMeeting: number;
    writesPerSecond: number;
    writeSeconds: number;
    drainMs: number;
    queueSize: string;
  };
  rounds: FanOutRound[];
  /** CPU µs per delivered event of the last round ÷ the first. */
  ratio: number;
  slow: FanOutSlow | null;
  problems: string[];
}

const TITLE = '## Fan-out: myMeetingEvents subscribers under write load';

const spread = (l: FanOutRound['latency']) => `${ms(l.p50)} / ${ms(l.p99)} / ${ms(l.max)}`;

function slowLine(slow: FanOutSlow | null): string {
  if (!slow) {
    return 'Slow subscriber: not run.';
  }
  const resumed = slow.resumedAfter.length > 0;
  return (
    `Slow subscriber (round ${slow.round}, WebSocket, a guest of meeting 1, stopped reading its ` +
    `socket during a burst of ${int(slow.burst)} writes to that meeting, written in ` +
    `${slow.burstSeconds.toFixed(1)} s; its events about ` +
    `${int(slow.eventBytes / 1024)} KB each): closed with **${slow.closedWith}** ` +
    `${(slow.closedAfterMs / 1000).toFixed(1)} s after it stopped reading, having read ` +
    `${int(slow.receivedBeforeClose)} events; ` +
    (resumed
      ? `resumed with \`after\` = its last cursor (${slow.resumedAfter.join(', ')}); `
      : 'never resumed; ') +
    `events expected ${int(slow.expected)}, delivered ${int(slow.delivered)}, ` +
    `**lost ${int(slow.lost)}, doubled ${int(slow.doubled)}**.`
  );
}

export function fanOutSection(report: FanOutReport): string[] {
  const { settings, rounds } = report;
  const first = rounds[0];
  const last = rounds[rounds.length - 1];
  return [
    TITLE,
    '',
    `Run ${report.startedAt}, took ${Math.round(report.seconds)} s` +
      `${report.quick ? ' (--quick: a shorter write phase)' : ''}. Each round on a service of its ` +
      `own (LOG_LEVEL=warn, SUBSCRIPTION_QUEUE_SIZE ${settings.queueSize}): ${settings.writers} ` +
      `writers each own one meeting with ${settings.guestsPerMeeting} guests; the writers, the guests ` +
      'and the uninvolved subscribers (generated users who may see none of these meetings) each ' +
      'hold one `myMeetingEvents` subscription, half over WebSocket, half over SSE. The writers ' +
      `update their meeting's title, ${settings.writesPerSecond} writes/s in all, for ` +
      `${settings.writeSeconds} s; the checks ${settings.drainMs / 1000} s after the last write. ` +
      "Latency: from the write's answer to the event's arrival (negative when the event came " +
      "first), over the write phase's deliveries. Node CPU: the service's utime + stime over the " +
      'write phase and the wait after it, per event delivered of its changes.',
    '',
    '| round | subscribers WS / SSE | of them uninvolved | writes | events expected | delivered | lost | doubled | subscribers closed | latency p50 / p99 / max ms | Node CPU s | CPU µs per delivered event |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rounds.map(
      (r) =>
        `| ${r.key} | ${int(r.subscribers.websocket)} / ${int(r.subscribers.sse)} | ` +
        `${int(r.subscribers.uninvolved)} | ${int(r.writes.paced)}` +
        `${r.writes.burst > 0 ? ` + ${int(r.writes.burst)} burst` : ''} | ${int(r.events.expected)} | ` +
        `${int(r.events.delivered)} | ${int(r.events.lost)} | ${int(r.events.doubled)} | ` +
        `${int(r.closed)}${r.closed > 0 ? ` (${r.closedHow})` : ''} | ${spread(r.latency)} | ` +
        `${(r.cost.nodeMs / 1000).toFixed(1)} | ${r.cpuUsPerEvent.toFixed(0)} |`,
    ),
    '',
    `CPU µs per delivered event, round ${last?.key} ÷ round ${first?.key}: ` +
      `**${Number.isFinite(report.ratio) ? `${report.ratio.toFixed(2)}×` : '–'}** ` +
      `(${int(first?.subscribers.uninvolved ?? 0)} against ${int(last?.subscribers.uninvolved ?? 0)} ` +
      'uninvolved subscribers; 1× would be a cost independent of them).',
    '',
    slowLine(report.slow),
    '',
    ...rounds.map(
      (r) =>
        `Round ${r.key}: ${int(r.subscribers.writers)} writers, ${int(r.subscribers.involved)} ` +
        `guests${r.subscribers.slow ? ` + ${r.subscribers.slow} slow` : ''}, ` +
        `${int(r.subscribers.uninvolved)} uninvolved, connected in ${r.connectSeconds.toFixed(1)} s; ` +
        `${int(r.events.inPhase)} events of the write phase delivered; ` +
        `uninvolved received ${int(r.events.uninvolvedReceived)}; out of order ` +
        `${int(r.events.outOfOrder)}; of another meeting or no write ${int(r.events.foreign)}; ` +
        `showing a later write's title ${int(r.events.laterTitle)}, an older one ` +
        `${int(r.events.olderTitle)}. Writes answered in ${spread(r.writes.answer)} ms ` +
        `(p50 / p99 / max). Over the write phase: PostgreSQL CPU ` +
        `${(r.cost.databaseMs / 1000).toFixed(1)} s, the harness's ` +
        `${(r.cost.harnessMs / 1000).toFixed(1)} s, other processes kept ` +
        `${r.cost.otherCores.toFixed(2)} cores busy; service peak RSS ${mib(r.peakRss)}.`,
    ),
    '',
    report.problems.length === 0
      ? 'Checks: nothing lost or doubled, no uninvolved subscriber received anything, nobody but the slow subscriber was closed.'
      : `**FAILED**: ${report.problems.join('; ')}.`,
  ];
}

/** Writes bench/results/fan-out.md; answers its path. */
export function writeFanOut(report: FanOutReport, command: string): string {
  mkdirSync(RESULTS, { recursive: true });
  const text = [
    '# Benchmark: fan-out of myMeetingEvents',
    '',
    `Produced by \`${command}\` (bench/README.md, "Fan-out"), ` + 'bench/run/fan-out-pass.ts.',
    '',
    ...fanOutSection(report),
    '',
  ].join('\n');
  writeFileSync(join(RESULTS, 'fan-out.md'), text);
  return join('bench', 'results', 'fan-out.md');
}
