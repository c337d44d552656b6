import { cpus } from 'node:os';
import { options } from './options';
import { traffic } from './traffic';

// The soak report: errors, latencies per operation, and the service's memory over time.

export interface Sample {
  elapsedS: number;
  rssMb: number;
  hwmMb: number;
  requests: number;
  errors: number;
  rps: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) {
    return 0;
  }
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Least-squares line through (x, y): slope, and R². */
function regression(points: Array<[number, number]>): { slope: number; r2: number } {
  const n = points.length;
  if (n < 3) {
    return { slope: 0, r2: 0 };
  }
  const meanX = points.reduce((s, [x]) => s + x, 0) / n;
  const meanY = points.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const [x, y] of points) {
    sxy += (x - meanX) * (y - meanY);
    sxx += (x - meanX) ** 2;
    syy += (y - meanY) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const r2 = sxx === 0 || syy === 0 ? 0 : (sxy * sxy) / (sxx * syy);
  return { slope, r2 };
}

export function buildReport(run: {
  startedAt: Date;
  elapsedMs: number;
  stoppedEarly: boolean;
  databaseLabel: string;
  samples: Sample[];
  exitCode: string;
  serviceErrors: string[];
  loadBefore: number[];
  loadAfter: number[];
  /** Users the clients act as. */
  users: number;
}): { markdown: string; summary: string; ok: boolean } {
  const minutes = run.elapsedMs / 60_000;
  const { samples } = run;
  const first = samples[0];
  const last = samples[samples.length - 1];
  const half = run.elapsedMs / 2000;
  const secondHalf = samples.filter((s) => s.elapsedS >= half);
  const trend = regression(secondHalf.map((s) => [s.elapsedS / 60, s.rssMb]));
  const whole = regression(samples.map((s) => [s.elapsedS / 60, s.rssMb]));
  const growth = trend.slope > options.maxSlope;
  const ok =
    traffic.totalErrors === 0 && !growth && run.exitCode === '0' && run.serviceErrors.length === 0;
  const rssStart = first?.rssMb ?? 0;
  const rssEnd = last?.rssMb ?? 0;
  const peak = Math.max(0, ...samples.map((s) => s.hwmMb));

  const lines: string[] = [];
  lines.push('# Soak run', '');
  lines.push(
    `- started ${run.startedAt.toISOString()}, ran ${minutes.toFixed(1)} min` +
      (run.stoppedEarly ? ' (stopped early)' : ''),
    `- database: ${run.databaseLabel}`,
    `- ${options.concurrency} concurrent clients over ${run.users} users; node ${process.version}, ` +
      `${cpus().length} cores, load average ${run.loadBefore.map((l) => l.toFixed(1)).join(' ')} at start, ` +
      `${run.loadAfter.map((l) => l.toFixed(1)).join(' ')} at end`,
    `- **${traffic.totalRequests} requests** (${(traffic.totalRequests / (run.elapsedMs / 1000)).toFixed(1)}/s), ` +
      `**${traffic.totalErrors} errors**; service error logs: ${run.serviceErrors.length}; ` +
      `exit code after SIGTERM: ${run.exitCode}`,
    `- RSS ${rssStart.toFixed(1)} MB at start, ${rssEnd.toFixed(1)} MB at end, peak (VmHWM) ${peak.toFixed(1)} MB`,
    `- RSS slope over the second half: **${trend.slope.toFixed(2)} MB/min** (R² ${trend.r2.toFixed(2)}, ` +
      `${secondHalf.length} samples; whole run ${whole.slope.toFixed(2)} MB/min) — ` +
      (growth
        ? `**steady growth** (above ${options.maxSlope} MB/min)`
        : `no steady growth (threshold ${options.maxSlope} MB/min)`),
    '',
  );

  lines.push('## Errors', '');
  if (traffic.errorsByStatus.size === 0) {
    lines.push('None: every response had an expected status.', '');
  } else {
    lines.push('| status | operation | count |', '| --- | --- | ---: |');
    for (const [key, count] of [...traffic.errorsByStatus].sort((a, b) => b[1] - a[1])) {
      const [status, ...op] = key.split(' ');
      lines.push(`| ${status} | ${op.join(' ')} | ${count} |`);
    }
    lines.push(
      '',
      'First errors:',
      '',
      ...traffic.errorSamples.map((e) => `- \`${e.replace(/`/g, "'")}\``),
      '',
    );
  }
  if (run.serviceErrors.length > 0) {
    lines.push('Service error logs (first 5):', '');
    for (const line of run.serviceErrors.slice(0, 5)) {
      lines.push('```', line, '```');
    }
    lines.push('');
  }

  lines.push('## Operations', '');
  lines.push(
    '| operation | requests | statuses | p50 ms | p95 ms | p99 ms | max ms |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: |',
  );
  for (const [op, entry] of [...traffic.stats].sort((a, b) => b[1].count - a[1].count)) {
    const sorted = [...entry.latencies].sort((a, b) => a - b);
    const statuses = [...entry.statuses].map(([s, c]) => `${s}×${c}`).join(', ');
    lines.push(
      `| ${op} | ${entry.count} | ${statuses} | ${percentile(sorted, 50).toFixed(1)} | ` +
        `${percentile(sorted, 95).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ` +
        `${(sorted[sorted.length - 1] ?? 0).toFixed(1)} |`,
    );
  }
  lines.push('');

  lines.push('## Memory over time (service process)', '');
  lines.push(
    '| elapsed | RSS MB | VmHWM MB | requests | req/s in interval | errors |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const s of samples) {
    const mm = `${Math.floor(s.elapsedS / 60)}:${String(s.elapsedS % 60).padStart(2, '0')}`;
    lines.push(
      `| ${mm} | ${s.rssMb.toFixed(1)} | ${s.hwmMb.toFixed(1)} | ${s.requests} | ${s.rps} | ${s.errors} |`,
    );
  }
  lines.push('');
  lines.push(
    `Command: \`npm run soak -- --minutes ${options.minutes} --concurrency ${options.concurrency}` +
      `${options.embedded ? ' --embedded' : ''}\`. The slope is a least-squares line through the ` +
      `RSS samples of the second half (after warm-up); growth is flagged above ${options.maxSlope} MB/min.`,
    '',
  );

  const summary =
    `${minutes.toFixed(1)} min, ${traffic.totalRequests} requests, ${traffic.totalErrors} errors, ` +
    `RSS ${rssStart.toFixed(1)} → ${rssEnd.toFixed(1)} MB, second-half slope ` +
    `${trend.slope.toFixed(2)} MB/min (R² ${trend.r2.toFixed(2)})${growth ? ' — STEADY GROWTH' : ''}, ` +
    `exit ${run.exitCode}`;
  return { markdown: lines.join('\n'), summary, ok };
}
