import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareBuilds, roundOrder, type AbSide } from '../lib/ab';
import { cleanupWrites, type DataSpec, databaseName, readFixtures } from '../lib/db';
import type { BenchOptions } from '../lib/options';
import { RESULTS } from '../lib/paths';
import { memoryOf, type Server } from '../lib/processes';
import { runSettings } from '../lib/report';
import { abMarkdown, type AbReport } from '../lib/report-ab';
import { hasBaseline, isPass, type LoadKey, type PassKey, scenarioInfo } from '../lib/scenarios';
import { summarize } from '../lib/stats';
import type { Build } from './ab-build';
import { checkEquality, compareAnswers, type SideStatements } from './equality';
import { countPass, type PassBuild, type PassOutcome, passSummary, timePass } from './event-passes';
import { cleanupScenarioData, makeScenarioData, prepareContext } from './prepare';
import { fmt, log } from './progress';
import { startBaseline, startService } from './targets';
import { measure, noRuns } from './timed-runs';

// --against <ref>: build A (the ref) and build B (the working tree) in turn, scenario by scenario,
// on the same database and beside the same baseline; B ÷ A per round. --against-node <node>: A is
// the working tree on that Node.js, B the same on the bench's own.

const startBuild = (dbUrl: string, build: Build, side: 'A' | 'B', logLevel: 'info' | 'warn') =>
  startService(dbUrl, logLevel, {
    root: build.root,
    name: `${side} (${build.label})`,
    ...(build.node && { execPath: build.node }),
  });

/** The file name of a ref: ab-<ref>.md, with what a file name cannot hold replaced. */
export const abFileName = (ref: string): string => `ab-${ref.replace(/[^\w.-]+/g, '-')}.md`;

export async function abMode(
  options: BenchOptions,
  builds: { a: Build; b: Build },
  data: { dbUrl: string; spec: DataSpec },
  started: number,
): Promise<void> {
  const ref = options.against as string;
  const { dbUrl, spec } = data;
  const writerId = (await readFixtures(dbUrl, 1)).writerId;
  await cleanupWrites(dbUrl, writerId);
  const loadKeys = options.scenarios.filter((key): key is LoadKey => !isPass(key));
  log(
    `Starting A (${builds.a.label}) and B (${builds.b.label}) with LOG_LEVEL=info, and the baseline…`,
  );
  const servers: Record<AbSide, Server> = {
    A: await startBuild(dbUrl, builds.a, 'A', 'info'),
    B: await startBuild(dbUrl, builds.b, 'B', 'info'),
    baseline: await startBaseline(dbUrl),
  };
  try {
    // Both builds must derive the bench's key; the callers sign in through B.
    await prepareContext(dbUrl, servers.A);
    let ctx = await prepareContext(dbUrl, servers.B);
    Object.assign(ctx, await makeScenarioData(loadKeys, ctx, servers.B));
    await checkEquality(ctx, servers.B, servers.baseline, loadKeys, false);
    const alone = loadKeys.filter((key) => !hasBaseline(key));
    const compared = loadKeys.length - alone.length;
    log(
      [
        compared > 0
          ? `B answers what the baseline answers for all ${compared} scenarios with a baseline.`
          : '',
        alone.length > 0 ? `No baseline for ${alone.join(', ')}: B answered what it must.` : '',
      ]
        .filter(Boolean)
        .join(' '),
    );
    const sides = (side: 'A' | 'B') => ({
      name: `${side} (${builds[side === 'A' ? 'a' : 'b'].label})`,
      server: servers[side],
      counts: 'log' as const,
      baseline: false,
    });
    const same = await compareAnswers(ctx, sides('A'), sides('B'), loadKeys, true);
    log(`A and B answer the same bytes for all ${loadKeys.length} scenarios.`);
    if (!options.quick) {
      log('Restarting A and B with LOG_LEVEL=warn for the timed runs.');
      await Promise.all([servers.A.stop(), servers.B.stop()]);
      servers.A = await startBuild(dbUrl, builds.a, 'A', 'warn');
      servers.B = await startBuild(dbUrl, builds.b, 'B', 'warn');
      ctx = await prepareContext(dbUrl, servers.B, ctx);
    }

    const rows: AbReport['scenarios'] = [];
    for (const key of loadKeys) {
      const info = scenarioInfo(key);
      const runs = { A: noRuns(), B: noRuns(), baseline: noRuns() };
      for (let round = 1; round <= options.rounds; round += 1) {
        // A and B only, when the baseline does not answer the scenario.
        for (const side of roundOrder(round).filter((s) => s !== 'baseline' || hasBaseline(key))) {
          const label = `${info.title} · ${side.padEnd(8)} · round ${round}/${options.rounds}`;
          await measure(ctx, key, servers[side], options, label, runs[side]);
        }
      }
      if (key === 'writes') {
        await cleanupWrites(dbUrl, writerId);
      }
      const sql = same.statements.get(key) as SideStatements;
      rows.push({
        info,
        a: summarize(runs.A.results, runs.A.peakRss),
        b: summarize(runs.B.results, runs.B.peakRss),
        baseline: hasBaseline(key) ? summarize(runs.baseline.results, runs.baseline.peakRss) : null,
        comparison: compareBuilds(runs.A.results, runs.B.results),
        statements: { a: sql.first, b: sql.second },
      });
    }
    const peakRss =
      loadKeys.length > 0
        ? {
            a: memoryOf([servers.A.child.pid as number]).hwm,
            b: memoryOf([servers.B.child.pid as number]).hwm,
          }
        : null;
    // The passes start services of their own: no other instance may take their webhook jobs.
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    for (const key of options.scenarios.filter(isPass)) {
      rows.push(await passAb(key, dbUrl, builds, options));
    }

    const report: AbReport = {
      ref,
      labels: { a: builds.a.label, b: builds.b.label },
      quick: options.quick,
      startedAt: new Date(started).toISOString(),
      finishedSeconds: (Date.now() - started) / 1000,
      settings: runSettings(
        options,
        databaseName(dbUrl),
        `${fmt(spec.users)} users × ${spec.followsPerUser} follows, ${fmt(spec.meetings)} meetings`,
      ),
      peakRss,
      scenarios: rows,
      notes: [
        `Before timing, every scenario's requests went to A and to B: status and body byte-for-byte equal (writes: equal but for the new participant's id, meeting id and timestamps, and the same stored statuses); B's also equal to the baseline's, or for a scenario without a baseline the answer it must give.`,
        ...(ctx.suggest
          ? [`${scenarioInfo('suggest-times').title} (no baseline): ${ctx.suggest.summary}.`]
          : []),
        ...(ctx.calendar
          ? [`${scenarioInfo('calendar-feed').title} (no baseline): ${ctx.calendar.summary}.`]
          : []),
        ...(options.scenarios.some(isPass)
          ? [
              'webhook-deliveries and resume (passes of their own, run after the other scenarios with A, B and the baseline stopped): each round runs the pass on A and on B in turn, each on a service started for it; their statements come from one more start of each build behind the statement-counting proxy; their checks (every delivery once, none missed) are among the failures.',
            ]
          : []),
        `Timed runs use LOG_LEVEL=${options.quick ? 'info (--quick does not restart the services)' : 'warn'}; SQL statements per request come from the equality pass (the \`sqlStatements\` log field; BEGIN/COMMIT not counted).`,
        'Both builds start as `npm start` does: `node <package.json config.nodeFlags of that build> dist/src/main.js`, NODE_ENV=production, the same JWT secret and DATABASE_URL.',
        `Compiled by each build's own \`npm run build\`: A \`${builds.a.buildCommand}\`; B \`${builds.b.buildCommand}\`.`,
        ...(builds.b.changes.length > 0
          ? [
              `B is the working tree, with uncommitted changes in ${builds.b.changes.map((f) => `\`${f}\``).join(', ')}.`,
            ]
          : []),
        ...(options.quick
          ? ['A quick run: short runs and two rounds, so only large differences are called.']
          : []),
      ],
    };
    const file = abFileName(ref);
    writeFileSync(join(RESULTS, file), abMarkdown(report));
    log(`\n${abMarkdown(report).split('\n## Notes')[0]}`);
    log(`Written bench/results/${file} in ${Math.round(report.finishedSeconds)} s.`);
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    await cleanupWrites(dbUrl, writerId).catch(() => undefined);
    await cleanupScenarioData(dbUrl).catch(() => undefined);
  }
}

/**
 * A pass's scenario on both builds: statements from a counting start of each, then `rounds`
 * timed runs of each, A and B back to back (each round's first alternating).
 */
async function passAb(
  key: PassKey,
  dbUrl: string,
  builds: { a: Build; b: Build },
  options: BenchOptions,
): Promise<AbReport['scenarios'][number]> {
  const buildOf = (side: 'A' | 'B'): PassBuild => {
    const build = side === 'A' ? builds.a : builds.b;
    return { root: build.root, name: `${side} (${build.label})` };
  };
  const counted = {
    A: await countPass(key, dbUrl, buildOf('A')),
    B: await countPass(key, dbUrl, buildOf('B')),
  };
  const outcomes: Record<'A' | 'B', PassOutcome[]> = { A: [], B: [] };
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const side of roundOrder(round).filter((s): s is 'A' | 'B' => s !== 'baseline')) {
      log(`${scenarioInfo(key).title} · ${side} · round ${round}/${options.rounds}`);
      outcomes[side].push(await timePass(key, dbUrl, options.quick, buildOf(side)));
    }
  }
  return {
    info: scenarioInfo(key),
    a: passSummary(outcomes.A),
    b: passSummary(outcomes.B),
    baseline: null,
    comparison: compareBuilds(
      outcomes.A.map((o) => o.numbers),
      outcomes.B.map((o) => o.numbers),
    ),
    statements: { a: counted.A.perUnit, b: counted.B.perUnit },
  };
}
