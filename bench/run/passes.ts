import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { databaseName, databaseUrl, SMALL_DATA } from '../lib/db';
import type { BenchOptions } from '../lib/options';
import { ROOT } from '../lib/paths';
import type { Report } from '../lib/report';
import type { ScenarioKey } from '../lib/scenarios';
import { summarize, type Summary } from '../lib/stats';
import { checkEquality } from './equality';
import { prepareContext, prepareDatabase } from './prepare';
import { startBaseline, startService } from './targets';
import { alternating, measure, measurePair, noRuns } from './timed-runs';

// Passes 3 and 4: search cost growth on a tenth of the data, and one process against a cluster.

export async function searchGrowth(
  options: BenchOptions,
  large: { service: Summary; baseline: Summary; serviceC1: Summary; baselineC1: Summary },
): Promise<Report['growth']> {
  const smallUrl = databaseUrl(options.databaseUrl, `${databaseName(options.databaseUrl)}_10k`);
  await prepareDatabase(smallUrl, SMALL_DATA, options.reseed);
  const service = await startService(smallUrl, 'warn');
  const baseline = await startBaseline(smallUrl);
  try {
    const ctx = await prepareContext(smallUrl, service);
    await checkEquality(ctx, service, baseline, ['search'], false);
    const title = '3. search @10k users';
    const small = await measurePair(ctx, 'search', { service, baseline }, options, title);
    const smallC1 = await measurePair(
      ctx,
      'search',
      { service, baseline },
      options,
      `${title}, 1 connection`,
      1,
    );
    return {
      small: databaseName(smallUrl),
      large: databaseName(options.databaseUrl),
      rows: [
        {
          label: `service, ${options.connections} connections`,
          small: small.service,
          large: large.service,
        },
        { label: 'service, 1 connection', small: smallC1.service, large: large.serviceC1 },
        {
          label: `baseline, ${options.connections} connections`,
          small: small.baseline,
          large: large.baseline,
        },
        { label: 'baseline, 1 connection', small: smallC1.baseline, large: large.baselineC1 },
      ],
    };
  } finally {
    await service.stop();
    await baseline.stop();
  }
}

export async function clusterPass(
  options: BenchOptions,
  ctxUrl: string,
): Promise<Report['cluster']> {
  if (!existsSync(join(ROOT, 'dist/src/cluster.js'))) {
    return { skipped: 'dist/src/cluster.js does not exist (no cluster start mode yet)' };
  }
  const workers = availableParallelism();
  const key: ScenarioKey = 'meeting-rest';
  const runs = { single: noRuns(), cluster: noRuns() };
  await alternating(options.rounds, ['single', 'cluster'] as const, async (mode, round) => {
    const service = await startService(ctxUrl, 'warn', {
      script: mode === 'single' ? 'dist/src/main.js' : 'dist/src/cluster.js',
      env: mode === 'cluster' ? { CLUSTER_WORKERS: String(workers) } : {},
    });
    try {
      const ctx = await prepareContext(ctxUrl, service);
      const label = `1. REST meeting · ${mode.padEnd(7)} · round ${round}/${options.rounds}`;
      await measure(ctx, key, service, options, label, runs[mode]);
    } finally {
      await service.stop();
    }
  });
  return {
    workers,
    scenario: '1 (REST meeting, 50 participants)',
    single: summarize(runs.single.results, runs.single.peakRss),
    cluster: summarize(runs.cluster.results, runs.cluster.peakRss),
  };
}
