import { type EventsResult, IDLE_SECONDS } from '../run/events-pass';
import { int, mib, ms, ratio, statements } from './format';
import { type PeersReport, peersSection } from './report-peers';
import { type ReplicaReport, replicaSection } from './report-replica';
import {
  type ResumeSection,
  resumeMarkdown,
  type WebhookSection,
  webhooksMarkdown,
} from './report-passes';
import type { ScenarioInfo } from './scenarios';
import type { Summary } from './stats';

/** Everything one benchmark run found, as written to results/<name>.json and .md. */
/** How a run loaded the service: the same block heads the full report and the A/B report. */
export interface RunSettings {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  rounds: number;
  database: string;
  data: string;
}

/** The settings block of a run, from its options, its database's name and what that holds. */
export function runSettings(
  options: Pick<RunSettings, 'connections' | 'warmupSeconds' | 'durationSeconds' | 'rounds'>,
  database: string,
  data: string,
): RunSettings {
  const { connections, warmupSeconds, durationSeconds, rounds } = options;
  return { connections, warmupSeconds, durationSeconds, rounds, database, data };
}

export interface Report {
  mode: 'full' | 'quick';
  startedAt: string;
  finishedSeconds: number;
  environment: Record<string, string>;
  settings: RunSettings;
  scenarios: {
    info: ScenarioInfo;
    service: Summary;
    /** Null for a scenario the baseline does not answer (`info.noBaseline`). */
    baseline: Summary | null;
    statements: { service: number; baseline: number; detail?: string };
  }[];
  searchQueries: { q: string; count: number }[];
  /** VmHWM of the service process over the timed pass, and of the baseline. */
  peakRss: { service: number; baseline: number };
  growth:
    | {
        small: string;
        large: string;
        rows: { label: string; small: Summary; large: Summary }[];
      }
    | { skipped: string };
  cluster:
    | {
        workers: number;
        scenario: string;
        single: Summary;
        cluster: Summary;
      }
    | { skipped: string };
  /** --peers: PostGraphile v5 on the meeting. */
  peers: PeersReport | { skipped: string };
  events: EventsResult | { skipped: string };
  /** The sections of the scenarios measured by passes of their own (their rows are above). */
  webhooks: WebhookSection | { skipped: string };
  resume: ResumeSection | { skipped: string };
  /** --replica: the read scenarios with one streaming replica (absent without the option). */
  replica?: ReplicaReport;
  notes: string[];
}

/** What a baseline column shows for a scenario without one. */
const NO_BASELINE = 'no baseline';

/** A baseline figure, or NO_BASELINE. */
const orNone = (summary: Summary | null, shown: (s: Summary) => string): string =>
  summary ? shown(summary) : NO_BASELINE;

function failures(summary: Summary): string {
  const entries = Object.entries(summary.failures);
  return entries.length === 0 ? '' : entries.map(([k, v]) => `${k}: ${v}`).join(', ');
}

/** The options of `npm run bench` that the report's title line names (` -- --quick --replica`). */
function commandOptions(report: Report): string {
  const given = [
    ...(report.mode === 'quick' ? ['--quick'] : []),
    ...(report.replica ? ['--replica'] : []),
  ];
  return given.length > 0 ? ` -- ${given.join(' ')}` : '';
}

export function markdown(report: Report, chartFile: string): string {
  const s = report.settings;
  const out: string[] = [
    `# Benchmark: service vs bare baseline (${report.mode} run)`,
    '',
    `Run ${report.startedAt}, took ${Math.round(report.finishedSeconds)} s. ` +
      `Produced by \`npm run bench${commandOptions(report)}\` (bench/README.md).`,
    '',
    `Load: autocannon in a separate process, ${s.connections} connections, ${s.warmupSeconds} s warm-up + ` +
      `${s.durationSeconds} s measured per run, ${s.rounds} round(s) per target, service and baseline ` +
      `alternating. Database \`${s.database}\`: ${s.data}.`,
    '',
    '## Results',
    '',
    'Ratios are service ÷ baseline: below 1× for throughput and above 1× for latency mean the service is slower.',
    ...report.scenarios
      .filter((row) => row.info.noBaseline)
      .map(
        (row) =>
          `"${NO_BASELINE}": ${row.info.title} is measured on the service alone, absolute numbers without a ratio (${row.info.noBaseline}).`,
      ),
    ...report.scenarios.flatMap((row) =>
      row.info.pass
        ? [
            `${row.info.title} is measured by a pass of its own (its section below): in the req/s column ${row.info.pass.rate}; in the p50 and p99 columns ${row.info.pass.latency}; CPU and SQL statements ${row.info.pass.per}.`,
          ]
        : [],
    ),
    '',
    '| scenario | req/s service | req/s baseline | req/s ratio | p50 ms service | p50 ms baseline | p50 ratio | p99 ms service | p99 ms baseline | p99 ratio |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of report.scenarios) {
    const { service: sv, baseline: bl } = row;
    out.push(
      `| ${row.info.title} | ${int(sv.rps)} | ${orNone(bl, (b) => int(b.rps))} | ${ratio(sv.rps, bl?.rps ?? Number.NaN)} | ` +
        `${ms(sv.p50)} | ${orNone(bl, (b) => ms(b.p50))} | ${ratio(sv.p50, bl?.p50 ?? Number.NaN)} | ` +
        `${ms(sv.p99)} | ${orNone(bl, (b) => ms(b.p99))} | ${ratio(sv.p99, bl?.p99 ?? Number.NaN)} |`,
    );
  }
  out.push(
    '',
    '### Cost per request',
    '',
    'CPU time is read from /proc over the measured phase and divided by the responses: it does not ' +
      'depend on how busy the machine was. PostgreSQL CPU is that of all its processes.',
    '',
    '| scenario | SQL statements service | SQL statements baseline | CPU ms/req service | CPU ms/req baseline | CPU ratio | PostgreSQL CPU ms/req service | PostgreSQL CPU ms/req baseline | peak RSS service | peak RSS baseline |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const row of report.scenarios) {
    const { service: sv, baseline: bl } = row;
    out.push(
      `| ${row.info.title} | ${statements(row.statements.service)} | ${orNone(bl, () => statements(row.statements.baseline))} | ` +
        `${ms(sv.cpuPerRequest)} | ${orNone(bl, (b) => ms(b.cpuPerRequest))} | ${ratio(sv.cpuPerRequest, bl?.cpuPerRequest ?? Number.NaN)} | ` +
        `${ms(sv.databaseCpuPerRequest)} | ${orNone(bl, (b) => ms(b.databaseCpuPerRequest))} | ${mib(sv.peakRss)} | ${orNone(bl, (b) => mib(b.peakRss))} |`,
    );
  }
  out.push(
    '',
    `![service vs baseline throughput](${chartFile})`,
    '',
    `Peak RSS over the whole timed pass (VmHWM): service ${mib(report.peakRss.service)}, ` +
      `baseline ${mib(report.peakRss.baseline)}.`,
    '',
    '### Per scenario',
    '',
    '| scenario | what | req/s per round (service; baseline) | wrong answers / errors | other processes, cores (service; baseline runs) | SQL detail |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const row of report.scenarios) {
    const bl = row.baseline;
    const rounds = `${row.service.roundRps.map(int).join(', ')}; ${orNone(bl, (b) => b.roundRps.map(int).join(', '))}`;
    const bad = [
      failures(row.service) && `service ${failures(row.service)}`,
      bl && failures(bl) && `baseline ${failures(bl)}`,
    ]
      .filter(Boolean)
      .join('; ');
    const others = `${row.service.contention.toFixed(2)}; ${orNone(bl, (b) => b.contention.toFixed(2))}`;
    out.push(
      `| ${row.info.title} | ${row.info.what} | ${rounds} | ${bad || 'none'} | ${others} | ${row.statements.detail ?? ''} |`,
    );
  }
  if (report.searchQueries.length > 0) {
    out.push(
      '',
      `Search queries (matches among active users): ${report.searchQueries.map((q) => `\`${q.q}\` ${int(q.count)}`).join(', ')}.`,
    );
  }

  out.push('', ...peersSection(report));
  if (report.replica) {
    out.push('', ...replicaSection(report.replica));
  }

  out.push('', '## Search cost growth', '');
  if ('skipped' in report.growth) {
    out.push(`Not measured: ${report.growth.skipped}.`);
  } else {
    const g = report.growth;
    out.push(
      `Scenario 3 on \`${g.small}\` (10,000 users) and \`${g.large}\` (100,000 users); ratio = p50 at 100k ÷ p50 at 10k (target ≤ 1.5).`,
      '',
      '| run | p50 ms 10k | p50 ms 100k | p50 ratio | req/s 10k | req/s 100k |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...g.rows.map(
        (r) =>
          `| ${r.label} | ${ms(r.small.p50)} | ${ms(r.large.p50)} | **${ratio(r.large.p50, r.small.p50)}** | ${int(r.small.rps)} | ${int(r.large.rps)} |`,
      ),
    );
  }

  out.push('', '## Single process vs cluster', '');
  if ('skipped' in report.cluster) {
    out.push(`Not measured: ${report.cluster.skipped}.`);
  } else {
    const c = report.cluster;
    out.push(
      `Scenario ${c.scenario}, \`node dist/src/main.js\` vs \`node dist/src/cluster.js\` (CLUSTER_WORKERS=${c.workers}), back to back.`,
      '',
      '| start mode | req/s | p50 ms | p99 ms | peak RSS (all processes) |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| single process | ${int(c.single.rps)} | ${ms(c.single.p50)} | ${ms(c.single.p99)} | ${mib(c.single.peakRss)} |`,
      `| cluster | ${int(c.cluster.rps)} | ${ms(c.cluster.p50)} | ${ms(c.cluster.p99)} | ${mib(c.cluster.peakRss)} |`,
      '',
      `Cluster ÷ single throughput: **${ratio(c.cluster.rps, c.single.rps)}**.`,
    );
  }

  out.push('', ...eventsSection(report.events));
  out.push('', ...webhooksMarkdown(report.webhooks));
  out.push('', ...resumeMarkdown(report.resume));

  out.push('', '## Environment', '', '| | |', '| --- | --- |');
  for (const [key, value] of Object.entries(report.environment)) {
    out.push(`| ${key} | ${value} |`);
  }
  if (report.notes.length > 0) {
    out.push('', '## Notes', '', ...report.notes.map((n) => `- ${n}`));
  }
  out.push('');
  return out.join('\n');
}

const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Throughput per scenario, service against baseline (each pair scaled to its larger bar). */
export function chart(report: Report): string {
  const width = 960;
  const left = 270;
  const barMax = 470;
  const rowHeight = 58;
  const top = 64;
  const height = top + report.scenarios.length * rowHeight + 40;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="13">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="20" y="28" font-size="17" font-weight="bold">Requests/s: service vs baseline (${report.settings.connections} connections)</text>`,
    `<rect x="20" y="40" width="12" height="12" fill="#2f6fb0"/><text x="38" y="51">service</text>`,
    `<rect x="110" y="40" width="12" height="12" fill="#b9b9b9"/><text x="128" y="51">baseline (bare node:http + pg)</text>`,
    `<text x="${width - 20}" y="51" text-anchor="end" fill="#555">service ÷ baseline</text>`,
  ];
  report.scenarios.forEach((row, i) => {
    const y = top + i * rowHeight;
    const bl = row.baseline;
    const scale = Math.max(row.service.rps, bl?.rps ?? 0, 1);
    const sw = Math.max(1, (row.service.rps / scale) * barMax);
    parts.push(
      `<text x="20" y="${y + 24}">${escapeXml(row.info.title)}</text>`,
      `<rect x="${left}" y="${y + 6}" width="${sw.toFixed(1)}" height="18" fill="#2f6fb0"/>`,
      `<text x="${(left + sw + 6).toFixed(1)}" y="${y + 20}" fill="#2f6fb0">${int(row.service.rps)} (p50 ${ms(row.service.p50)} ms)</text>`,
    );
    if (!bl) {
      const alone = row.info.pass ? `${row.info.pass.rate}` : `${NO_BASELINE}: the service alone`;
      parts.push(
        `<text x="${left}" y="${y + 42}" fill="#555">${escapeXml(alone)}</text>`,
        `<text x="${width - 20}" y="${y + 32}" text-anchor="end" fill="#555">–</text>`,
      );
      return;
    }
    const bw = Math.max(1, (bl.rps / scale) * barMax);
    const share = bl.rps > 0 ? row.service.rps / bl.rps : 0;
    parts.push(
      `<rect x="${left}" y="${y + 28}" width="${bw.toFixed(1)}" height="18" fill="#b9b9b9"/>`,
      `<text x="${(left + bw + 6).toFixed(1)}" y="${y + 42}" fill="#555">${int(bl.rps)} (p50 ${ms(bl.p50)} ms)</text>`,
      `<text x="${width - 20}" y="${y + 32}" text-anchor="end" font-weight="bold" fill="${share < 0.5 ? '#b03a2e' : '#1e7d32'}">${share.toFixed(2)}×</text>`,
    );
  });
  parts.push(
    `<text x="20" y="${height - 14}" fill="#777" font-size="11">${escapeXml(report.startedAt)} · ${report.settings.durationSeconds} s × ${report.settings.rounds} round(s) per target · ${escapeXml(report.settings.data)}</text>`,
    '</svg>',
    '',
  );
  return parts.join('\n');
}

/** The events scenario's section: delivery latency and memory with every socket open. */
export function eventsSection(events: Report['events']): string[] {
  const out = ['## Events: subscribers over WebSocket', ''];
  if ('skipped' in events) {
    out.push(`Not measured: ${events.skipped}.`);
    return out;
  }
  out.push(
    `${int(events.subscribers)} users each subscribed to \`invitationReceived\` on one instance ` +
      `(sockets opened in ${events.connectSeconds.toFixed(1)} s); ${int(events.events)} meetings ` +
      "created through REST, each inviting one of them. Latency: from the mutation's response " +
      'reaching the client to the invitation reaching its subscriber (negative: the event came first).',
    '',
    `RSS: at readiness (start-up's garbage already given back, src/runtime-memory.ts); idle, ` +
      `after ${IDLE_SECONDS} s without requests; with every socket open; the peak while sockets ` +
      'opened and events were delivered.',
    '',
    '| delivered | p50 ms | p99 ms | max ms | RSS at readiness | RSS idle | RSS, sockets open | peak RSS |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${int(events.delivered)} of ${int(events.events)} | ${ms(events.latency.p50)} | ` +
      `${ms(events.latency.p99)} | ${ms(events.latency.max)} | ${mib(events.rss.ready)} | ` +
      `${mib(events.rss.idle)} | ${mib(events.rss.withSockets)} | ${mib(events.rss.peak)} |`,
    '',
    `After the listener's connection was terminated on the server: ` +
      `${int(events.afterReconnect.delivered)} of ${int(events.afterReconnect.events)} delivered, ` +
      `p50 ${ms(events.afterReconnect.p50)} ms, p99 ${ms(events.afterReconnect.p99)} ms, ` +
      `max ${ms(events.afterReconnect.max)} ms (the reconnect included).`,
  );
  return out;
}
