import { int, ms, ratio, statements } from './format';
import type { PeerInfo, PeerKey } from './peers';
import type { Report } from './report';
import type { Summary } from './stats';

/** What the --peers pass found: each PostGraphile variant's timed runs and statements. */
export interface PeersReport {
  rows: {
    info: PeerInfo;
    summary: Summary;
    /** SQL statements per request, BEGIN/COMMIT not counted (as for the service and baseline), */
    statements: number;
    /** and BEGIN/COMMIT per request. */
    transactionControl: number;
  }[];
}

/** The targets: the service ahead of v5 with the token by this much, of v5 without auth. */
const AHEAD_OF_TOKEN = 2;
const AHEAD_OF_NO_AUTH = 1;

const TITLE = '## Peers: PostGraphile v5 on the meeting';

interface Line {
  label: string;
  summary: Summary | undefined;
  /** The baseline's req/s this line is divided by (that of its own face). */
  baselineRps: number;
  statements: string;
}

/** The meeting's table (service, baseline, PostGraphile v5 ± token) and the ratios. */
export function peersSection(report: Report): string[] {
  if ('skipped' in report.peers) {
    return [TITLE, '', `Not measured: ${report.peers.skipped}.`];
  }
  const { rows } = report.peers;
  const faces = [
    { face: 'REST', row: report.scenarios.find((r) => r.info.key === 'meeting-rest') },
    { face: 'GraphQL', row: report.scenarios.find((r) => r.info.key === 'meeting-graphql') },
  ];
  const [rest, graphql] = faces.map((f) => f.row);
  const graphqlBaseline = graphql?.baseline.rps ?? Number.NaN;
  const lines: Line[] = [
    ...(['service', 'baseline'] as const).flatMap((side) =>
      faces.map(({ face, row }) => ({
        label: side === 'service' ? `service ${face}` : `bare baseline (${face})`,
        summary: row?.[side],
        baselineRps: row?.baseline.rps ?? Number.NaN,
        statements: statements(row?.statements[side] ?? Number.NaN),
      })),
    ),
    ...rows.map((row) => ({
      label: row.info.title,
      summary: row.summary,
      baselineRps: graphqlBaseline,
      statements: `${statements(row.statements)} (+ ${statements(row.transactionControl)} BEGIN/COMMIT)`,
    })),
  ];
  const out = [
    TITLE,
    '',
    'The 50-participant meeting with the same fields, from one run: the service and the baseline ' +
      'from scenarios 1 and 2, PostGraphile v5 (amber preset, bench/peers/postgraphile/) asked in its ' +
      "own schema after its answer was checked to hold the service's data. ÷ baseline divides by the " +
      'baseline of the same face (PostGraphile: the GraphQL one). The peers are timed right after ' +
      'the scenarios, the two variants alternating round by round. Statements: BEGIN/COMMIT not ' +
      'counted, as for the others; other processes: the cores the rest of the machine kept busy.',
    '',
    '| target | req/s | ÷ baseline | p99 ms | Node CPU ms/req | PostgreSQL CPU ms/req | statements | other processes, cores |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...lines.map(
      (l) =>
        `| ${l.label} | ${int(l.summary?.rps ?? Number.NaN)} | ${ratio(l.summary?.rps ?? Number.NaN, l.baselineRps)} | ` +
        `${ms(l.summary?.p99 ?? Number.NaN)} | ${ms(l.summary?.cpuPerRequest ?? Number.NaN)} | ` +
        `${ms(l.summary?.databaseCpuPerRequest ?? Number.NaN)} | ${l.statements} | ` +
        `${l.summary?.contention.toFixed(2) ?? '–'} |`,
    ),
    '',
    'Service ÷ PostGraphile v5, req/s:',
    '',
    '| | service REST | service GraphQL | target |',
    '| --- | ---: | ---: | --- |',
  ];
  const peer = (key: PeerKey) => rows.find((r) => r.info.key === key);
  const targets = [
    {
      peer: peer('postgraphile-token'),
      wanted: `≥ ${AHEAD_OF_TOKEN}×`,
      met: (r: number) => r >= AHEAD_OF_TOKEN,
    },
    {
      peer: peer('postgraphile-no-auth'),
      wanted: `> ${AHEAD_OF_NO_AUTH}×`,
      met: (r: number) => r > AHEAD_OF_NO_AUTH,
    },
  ];
  for (const { peer, wanted, met } of targets) {
    if (peer === undefined) {
      continue;
    }
    const versus = (s: Summary | undefined): string => {
      const r = (s?.rps ?? Number.NaN) / peer.summary.rps;
      return Number.isFinite(r) ? `${r.toFixed(2)}× ${met(r) ? '(met)' : '(not met)'}` : '–';
    };
    out.push(
      `| ÷ ${peer.info.title} | ${versus(rest?.service)} | ${versus(graphql?.service)} | ${wanted} |`,
    );
  }
  return out;
}
