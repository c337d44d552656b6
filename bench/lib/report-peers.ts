import { int, ms, ratio, statements } from './format';
import type { MeetingTargetKey, PeerKey } from './peers';
import type { Report } from './report';
import type { Summary } from './stats';

/** What the --peers pass found: the meeting on every target, timed in one rotation. */
export interface PeersReport {
  rows: {
    key: MeetingTargetKey;
    title: string;
    /** The row whose req/s this one's "÷ baseline" divides by (the baseline of its face). */
    baselineKey: MeetingTargetKey;
    summary: Summary;
    /** SQL statements per request, BEGIN/COMMIT not counted (service and baseline: as in 1, 2), */
    statements: number;
    /** and BEGIN/COMMIT per request, counted by the peers. */
    transactionControl?: number;
  }[];
}

/**
 * Issue 29's targets: the service ahead of v5 with the token by this much, and of v5 without auth
 * by this much, on both faces.
 */
const AHEAD_OF_TOKEN = 2;
const AHEAD_OF_NO_AUTH = 1.2;

const TITLE = '## Peers: PostGraphile v5 on the meeting';

/** The meeting's table (service, baseline, PostGraphile v5 ± token) and the issue's ratios. */
export function peersSection(report: Report): string[] {
  if ('skipped' in report.peers) {
    return [TITLE, '', `Not measured: ${report.peers.skipped}.`];
  }
  const { rows } = report.peers;
  const rps = (key: MeetingTargetKey): number =>
    rows.find((r) => r.key === key)?.summary.rps ?? Number.NaN;
  const out = [
    TITLE,
    '',
    'The 50-participant meeting with the same fields on every target, timed in one rotation (each ' +
      'round starts with the next target) after the scenarios: the service and the bare baseline ' +
      'on both faces, and PostGraphile v5 (amber preset, bench/peers/postgraphile/) asked in its own ' +
      "schema once its answer was checked to hold the service's data. ÷ baseline divides by the " +
      'baseline of the same face (PostGraphile: the GraphQL one). Statements: BEGIN/COMMIT not ' +
      'counted, as for the others (the service and baseline counts are those of scenarios 1 and 2); ' +
      'other processes: the cores the rest of the machine kept busy. PostGraphile verifies the ' +
      'signature on every request (no cache) and hands the caller to PostgreSQL as ' +
      '`jwt.claims.sub`; neither variant checks that the caller may see the meeting (the bench ' +
      'schema has no row-level security), which the service and the baseline do.',
    '',
    '| target | req/s | ÷ baseline | p99 ms | Node CPU ms/req | PostgreSQL CPU ms/req | statements | other processes, cores |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.title} | ${int(r.summary.rps)} | ${ratio(r.summary.rps, rps(r.baselineKey))} | ` +
        `${ms(r.summary.p99)} | ${ms(r.summary.cpuPerRequest)} | ${ms(r.summary.databaseCpuPerRequest)} | ` +
        `${statements(r.statements)}${r.transactionControl === undefined ? '' : ` (+ ${statements(r.transactionControl)} BEGIN/COMMIT)`} | ` +
        `${r.summary.contention.toFixed(2)} |`,
    ),
    '',
    'Service ÷ PostGraphile v5, req/s:',
    '',
    '| | service REST | service GraphQL | target |',
    '| --- | ---: | ---: | --- |',
  ];
  const targets: { peer: PeerKey; wanted: string; met: (r: number) => boolean }[] = [
    { peer: 'postgraphile-token', wanted: `≥ ${AHEAD_OF_TOKEN}×`, met: (r) => r >= AHEAD_OF_TOKEN },
    {
      peer: 'postgraphile-no-auth',
      wanted: `≥ ${AHEAD_OF_NO_AUTH}×`,
      met: (r) => r >= AHEAD_OF_NO_AUTH,
    },
  ];
  for (const { peer, wanted, met } of targets) {
    const versus = (service: MeetingTargetKey): string => {
      const r = rps(service) / rps(peer);
      return Number.isFinite(r) ? `${r.toFixed(2)}× ${met(r) ? '(met)' : '(not met)'}` : '–';
    };
    const title = rows.find((r) => r.key === peer)?.title ?? peer;
    out.push(
      `| ÷ ${title} | ${versus('service-rest')} | ${versus('service-graphql')} | ${wanted} |`,
    );
  }
  return out;
}
