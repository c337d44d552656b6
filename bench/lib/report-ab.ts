import { type AbComparison, LEAST_CALLED, type Spread } from './ab';
import { int, mib, ms, ratio, statements } from './format';
import type { RunSettings } from './report';
import type { ScenarioInfo } from './scenarios';
import type { Summary } from './stats';

/** Everything an A/B run (`--against <ref>`) found, as written to results/ab-<ref>.md. */
export interface AbReport {
  ref: string;
  /** Short commits of the builds (B may have uncommitted changes on top). */
  labels: { a: string; b: string };
  quick: boolean;
  startedAt: string;
  finishedSeconds: number;
  settings: RunSettings;
  /**
   * VmHWM of each build's service process when its timed runs ended (the equality pass included
   * with --quick, which does not restart the services); null when only passes ran.
   */
  peakRss: { a: number; b: number } | null;
  scenarios: {
    info: ScenarioInfo;
    a: Summary;
    b: Summary;
    /** Null for a scenario the baseline does not answer. */
    baseline: Summary | null;
    comparison: AbComparison;
    /** SQL statements per request of each build, from the equality pass. */
    statements: { a: number; b: number };
  }[];
  notes: string[];
}

const times = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');

/** The mean ratio in bold, then the range over rounds. */
const withRange = (s: Spread): string =>
  `**${times(s.mean)}** (${s.rounds.length > 1 ? `${times(s.min)}–${times(s.max)}` : 'one round'})`;

const each = (s: Spread): string => s.rounds.map((r) => r.toFixed(2)).join(', ');

export function abMarkdown(report: AbReport): string {
  const s = report.settings;
  const { a, b } = report.labels;
  const command = `npm run bench -- --against ${report.ref}${report.quick ? ' --quick' : ''}`;
  const out: string[] = [
    `# A/B: ${a} (A) against ${b} (B)`,
    '',
    `Run ${report.startedAt}, took ${Math.round(report.finishedSeconds)} s: \`${command}\` ` +
      '(bench/README.md, "A/B runs"). A is the ref built in a git worktree with its own ' +
      '`npm run build`; B is the working tree built with `npm run build`. Both served the same ' +
      `database \`${s.database}\` (${s.data}) beside the same baseline.`,
    '',
    `Load: ${s.connections} connections, ${s.warmupSeconds} s warm-up + ${s.durationSeconds} s ` +
      `measured per run, ${s.rounds} round(s) per scenario; a round runs A, B and the baseline ` +
      'back to back (odd rounds A, B, baseline; even rounds baseline, B, A).',
    '',
    '## B against A',
    '',
    'B ÷ A: the geometric mean of the rounds’ own ratios (in bold), then the least and the ' +
      'greatest of them, then each. Above 1× for req/s, and below 1× for CPU per request, B is ' +
      'better. "Node CPU" is the service process’s CPU time per response, read from /proc (it ' +
      'moves much less with what else the machine runs than req/s does). The reading calls a ' +
      `difference only when two or more rounds all agree and it is ${LEAST_CALLED * 100}% or more.`,
    '',
    ...report.scenarios.flatMap((row) =>
      row.info.pass
        ? [
            `${row.info.title} is measured by a pass of its own: in its req/s columns ${row.info.pass.rate}; its CPU and SQL statements ${row.info.pass.per}.`,
            '',
          ]
        : [],
    ),
    '| scenario | req/s A | req/s B | B ÷ A req/s | each round | Node CPU ms/req A | Node CPU ms/req B | B ÷ A CPU | each round | A ÷ baseline req/s | B ÷ baseline req/s | SQL/req A; B | peak RSS A; B | reading |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const row of report.scenarios) {
    const c = row.comparison;
    out.push(
      `| ${row.info.title} | ${int(row.a.rps)} | ${int(row.b.rps)} | ${withRange(c.rps)} | ${each(c.rps)} | ` +
        `${ms(c.cpuMs.a)} | ${ms(c.cpuMs.b)} | ${withRange(c.cpu)} | ${each(c.cpu)} | ` +
        `${ratio(row.a.rps, row.baseline?.rps ?? Number.NaN)} | ${ratio(row.b.rps, row.baseline?.rps ?? Number.NaN)} | ` +
        `${statements(row.statements.a)}; ${statements(row.statements.b)} | ` +
        `${mib(row.a.peakRss)}; ${mib(row.b.peakRss)} | ${c.reading} |`,
    );
  }
  out.push(
    '',
    'Peak RSS per scenario: the largest RSS of the build’s service process polled every 500 ms ' +
      'during its runs of that scenario (it keeps what earlier scenarios grew).',
    ...(report.peakRss
      ? [
          '',
          `Peak RSS over the whole timed pass (VmHWM): A ${mib(report.peakRss.a)}, B ${mib(report.peakRss.b)}.`,
        ]
      : []),
    '',
    '### Per round',
    '',
    'The baseline’s own req/s from round to round shows how much the machine drifted.',
    '',
    '| scenario | req/s A per round | req/s B per round | req/s baseline per round | p50 ms A; B | other processes, cores (A; B; baseline) | wrong answers / errors |',
    '| --- | --- | --- | --- | ---: | --- | --- |',
  );
  for (const row of report.scenarios) {
    const bad = (
      [
        ['A', row.a],
        ['B', row.b],
        ['baseline', row.baseline],
      ] as const
    )
      .map(([name, sum]) => {
        const entries = Object.entries(sum?.failures ?? {});
        return entries.length === 0
          ? ''
          : `${name} ${entries.map(([k, v]) => `${k}: ${v}`).join(', ')}`;
      })
      .filter(Boolean)
      .join('; ');
    out.push(
      `| ${row.info.title} | ${row.a.roundRps.map(int).join(', ')} | ${row.b.roundRps.map(int).join(', ')} | ` +
        `${row.baseline?.roundRps.map(int).join(', ') ?? 'no baseline'} | ${ms(row.a.p50)}; ${ms(row.b.p50)} | ` +
        `${[row.a, row.b, row.baseline].map((x) => x?.contention.toFixed(2) ?? '–').join('; ')} | ${bad || 'none'} |`,
    );
  }
  out.push('', '## Notes', '', ...report.notes.map((n) => `- ${n}`), '');
  return out.join('\n');
}
