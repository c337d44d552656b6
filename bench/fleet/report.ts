import type { FaultRecord } from './faults';
import type { EventCheck, HookCheck, WriteCheck } from './verify';
import type { ReadCheck } from './writers';

// The fleet run's table, and whether it lost anything.

export interface FleetResult {
  hosts: number;
  seconds: number;
  writes: WriteCheck;
  refused: string[];
  reads: ReadCheck[];
  events: { websocket: EventCheck; sse: EventCheck };
  hooks: HookCheck;
  /** Seconds from the kill until the held delivery came again from another host (NaN: never). */
  heldRedelivered: number | null;
  faults: FaultRecord[];
  answers: [string, Record<string, number>][];
  /** The 4xx and 5xx answers by status and code. */
  failedAnswers: Map<string, number>;
}

/** What makes the run fail: every loss, doubling, miss or disorder. */
export function failures(r: FleetResult): string[] {
  const found: [boolean, string][] = [
    [r.writes.lost > 0, `${r.writes.lost} acknowledged writes lost`],
    [r.writes.duplicated > 0, `${r.writes.duplicated} writes made twice`],
    [r.writes.unacknowledged > 0, `${r.writes.unacknowledged} writes never acknowledged`],
    [r.refused.length > 0, `${r.refused.length} writes refused: ${r.refused[0] ?? ''}`],
    ...(['websocket', 'sse'] as const).flatMap((t): [boolean, string][] => [
      [r.events[t].missing > 0, `${r.events[t].missing} events lost (${t})`],
      [r.events[t].duplicated > 0, `${r.events[t].duplicated} events twice (${t})`],
      [r.events[t].outOfOrder > 0, `${r.events[t].outOfOrder} events out of order (${t})`],
      [r.events[t].wrong > 0, `${r.events[t].wrong} events not of the subscriber (${t})`],
    ]),
    [r.hooks.missing > 0, `${r.hooks.missing} webhooks never delivered`],
    [r.hooks.duplicated > 0, `${r.hooks.duplicated} webhooks delivered twice`],
    [r.hooks.badSignatures > 0, `${r.hooks.badSignatures} webhooks badly signed`],
    [
      r.reads.some((read) => read.missed),
      `${r.reads.filter((read) => read.missed).length} reads missed the caller's own write`,
    ],
    [r.heldRedelivered !== null && !(r.heldRedelivered <= 30), 'the held webhook not within 30 s'],
  ];
  return found.filter(([failed]) => failed).map(([, what]) => what);
}

const s = (seconds: number | undefined) =>
  seconds === undefined || Number.isNaN(seconds) ? '–' : `${seconds.toFixed(1)} s`;

export function table(r: FleetResult): string {
  const missed = (how: string) => {
    const reads = r.reads.filter((read) => read.how === how);
    return `${reads.filter((read) => read.missed).length} of ${reads.length}`;
  };
  const event = (t: 'websocket' | 'sse') => {
    const e = r.events[t];
    return (
      `| events over ${t === 'sse' ? 'SSE' : 'WebSocket'} (${e.subscribers} subscribers, ` +
      `${e.connections} connections) | ${e.expected} | lost ${e.missing}, doubled ` +
      `${e.duplicated}, out of order ${e.outOfOrder} |`
    );
  };
  const classes = ['2xx', '4xx', '5xx', 'no answer'];
  return [
    `${r.hosts} hosts behind HAProxy, a primary and a streaming replica, ${r.seconds.toFixed(0)} s of load`,
    '',
    '| what | count | found |',
    '| --- | ---: | --- |',
    `| acknowledged writes | ${r.writes.acknowledged} | lost ${r.writes.lost}, doubled ${r.writes.duplicated}; never acknowledged ${r.writes.unacknowledged} |`,
    event('websocket'),
    event('sse'),
    `| webhooks | ${r.hooks.expected} | undelivered ${r.hooks.missing}, doubled ${r.hooks.duplicated}; the one in flight at the kill delivered again after ${r.heldRedelivered === null ? '– (none in flight)' : s(r.heldRedelivered)} |`,
    `| reads after the caller's own write | ${r.reads.length} | missed: with X-Read-After ${missed('X-Read-After')}, with no header ${missed('no header')} |`,
    '',
    '| fault | at | lasted | balancer marked the host down after | note |',
    '| --- | ---: | ---: | ---: | --- |',
    ...r.faults.map(
      (f) =>
        `| ${f.phase} | ${s(f.at)} | ${s(f.seconds)} | ${f.balancerDownAfter === undefined ? '' : s(f.balancerDownAfter)} | ${f.note ?? ''} |`,
    ),
    '',
    `| phase | ${classes.join(' | ')} |`,
    `| --- | ${classes.map(() => '---:').join(' | ')} |`,
    ...r.answers.map(
      ([phase, counts]) => `| ${phase} | ${classes.map((c) => counts[c] ?? 0).join(' | ')} |`,
    ),
    '',
    `4xx and 5xx answers: ${
      [...r.failedAnswers].map(([what, n]) => `${what} × ${n}`).join(', ') || 'none'
    }`,
  ].join('\n');
}
