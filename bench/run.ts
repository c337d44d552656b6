import { cleanupWrites, databaseName, readFixtures } from './lib/db';
import { parseOptions, USAGE, UsageError } from './lib/options';
import { memoryOf } from './lib/processes';
import { eventsSection, markdown, type Report, runSettings } from './lib/report';
import { resumeSection, webhookSection } from './lib/report-passes';
import {
  hasBaseline,
  isPass,
  type LoadKey,
  type PassKey,
  scenarioInfo,
  sendAcceptEncoding,
} from './lib/scenarios';
import type { Summary } from './lib/stats';
import { buildRef, runtimeBuilds, workingTreeBuild } from './run/ab-build';
import { abMode } from './run/ab-mode';
import { checkEquality, type Statements } from './run/equality';
import { countPass, passSummary, timePass } from './run/event-passes';
import { EVENTS, eventsPass } from './run/events-pass';
import { budgetRun } from './run/budget-pass';
import { cacheRun } from './run/cache-pass';
import { costRun } from './run/cost-pass';
import { fanOutRun } from './run/fan-out-pass';
import { clusterPass, searchGrowth } from './run/passes';
import { ensurePeersInstalled, peersPass } from './run/peers';
import {
  chooseData,
  cleanupScenarioData,
  ensureBuilt,
  makeScenarioData,
  prepareContext,
} from './run/prepare';
import { profileMode } from './run/profile-mode';
import { replicaPass, stopReplicaPair } from './run/replica-pass';
import { fmt, log } from './run/progress';
import { environment, runNotes, writeReport } from './run/report-files';
import { setServiceEnv, startBaseline, startService } from './run/targets';
import { cleanupResume } from './run/resume-setup';
import { loadGenerator, measurePair, measureScenario } from './run/timed-runs';
import { cleanupWebhooks, WEBHOOKS } from './run/webhook-setup';
import { killRunningServices } from '../test/helpers/service-process';

/**
 * `npm run bench`: the service against a bare node:http + pg baseline, scenario by scenario.
 *   1. prepare the PostgreSQL benchmark database (seed unless the expected data is there)
 *   2. start the service (LOG_LEVEL=info) and the baseline; check that both answer the same bytes
 *      for every scenario and count SQL statements per request
 *   3. restart the service with LOG_LEVEL=warn and measure each scenario with autocannon (in a
 *      child process), service and baseline alternating
 *   4. with --peers, PostGraphile v5 on the meeting (checked against the service's answer)
 *   5. search cost growth (10k vs 100k users), single process vs cluster, the events pass
 *   6. the scenarios measured by passes of their own (webhook-deliveries, resume), each on a
 *      service of its own: statements counted on one start, timed on another
 *   6b. with --replica, the read scenarios on a PostgreSQL primary and streaming replica of their
 *      own (a copy of the data), the service reading from the replica (run/replica-pass.ts)
 *   7. write bench/results/latest.md, latest.svg and latest.json
 * With --against <ref>, instead of 2-6: that ref's build and the working tree's in turn
 * (run/ab-mode.ts), written to bench/results/ab-<ref>.md.
 */

async function main(argv: readonly string[]): Promise<void> {
  const parsed = parseOptions(argv);
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const options = parsed;
  setServiceEnv(options.serviceEnv);
  sendAcceptEncoding(options.acceptEncoding);
  const started = Date.now();
  ensureBuilt(options);
  const builds = options.againstNode
    ? runtimeBuilds(options.againstNode)
    : options.against
      ? { a: buildRef(options.against), b: workingTreeBuild() }
      : null;
  const mode = options.quick ? 'quick' : 'full';

  const { dbUrl, spec } = await chooseData(options);

  if (builds) {
    await abMode(options, builds, { dbUrl, spec }, started);
    return;
  }

  if (options.profile) {
    await profileMode(options, options.profile);
    return;
  }
  if (options.eventsOnly) {
    log('Events: 1,000 WebSocket subscribers on one instance…');
    log(`\n${eventsSection(await eventsPass(dbUrl, EVENTS)).join('\n')}`);
    return;
  }
  const command = `npm run bench -- ${argv.join(' ')}`;
  if (options.fanOutOnly) {
    await fanOutRun(dbUrl, options.quick, command);
    return;
  }
  if (options.budgetOnly) {
    await budgetRun(dbUrl, options.quick, command);
    return;
  }
  if (options.cacheOnly) {
    await cacheRun(dbUrl, options, command);
    return;
  }
  if (options.costsOnly) {
    await costRun(dbUrl, options, command);
    return;
  }

  if (options.peers) {
    ensurePeersInstalled();
  }
  const writerId = (await readFixtures(dbUrl, 1)).writerId;
  await cleanupWrites(dbUrl, writerId);
  const loadKeys = options.scenarios.filter((key): key is LoadKey => !isPass(key));
  const passKeys = options.scenarios.filter(isPass);

  // Pass 1: equality and SQL statements, with the service logging every request.
  log('Starting the service (LOG_LEVEL=info) and the baseline…');
  let service = await startService(dbUrl, 'info');
  const baseline = await startBaseline(dbUrl);
  try {
    let ctx = await prepareContext(dbUrl, service);
    Object.assign(ctx, await makeScenarioData(loadKeys, ctx, service));
    const { statements, searchCounts } = await checkEquality(
      ctx,
      service,
      baseline,
      loadKeys,
      true,
    );
    const alone = loadKeys.filter((key) => !hasBaseline(key));
    const compared = loadKeys.length - alone.length;
    log(
      [
        compared > 0
          ? `Bodies are byte-for-byte equal for all ${compared} scenarios with a baseline.`
          : '',
        alone.length > 0 ? `No baseline for ${alone.join(', ')}: answered what it must.` : '',
      ]
        .filter(Boolean)
        .join(' '),
    );
    for (const key of loadKeys) {
      const s = statements.get(key);
      log(
        `  SQL statements per request, ${key}: service ${s?.service.toFixed(1)}, baseline ${hasBaseline(key) ? s?.baseline.toFixed(1) : '– (none)'}`,
      );
    }
    // Pass 2: timed, the service logging warnings only (--quick keeps it as it is, logs and all).
    if (!options.quick) {
      await service.stop();
      log('Restarting the service with LOG_LEVEL=warn for the timed runs.');
      service = await startService(dbUrl, 'warn');
      ctx = await prepareContext(dbUrl, service, ctx);
    }
    const rows: Report['scenarios'] = [];
    let searchC1: { service: Summary; baseline: Summary } | null = null;
    for (const key of loadKeys) {
      const info = scenarioInfo(key);
      const pair = await measureScenario(ctx, key, { service, baseline }, options, info.title);
      rows.push({ info, ...pair, statements: statements.get(key) as Statements });
      if (key === 'writes') {
        await cleanupWrites(dbUrl, writerId);
      }
      if (key === 'search' && options.growth) {
        searchC1 = await measurePair(
          ctx,
          key,
          { service, baseline },
          options,
          `${info.title}, 1 connection`,
          1,
        );
      }
    }
    const peers: Report['peers'] = options.peers
      ? await peersPass(ctx, { service, baseline }, statements, options)
      : { skipped: 'run without --peers' };
    const peakRss = {
      service: memoryOf([service.child.pid as number]).hwm,
      baseline: memoryOf([baseline.child.pid as number]).hwm,
    };
    await service.stop();
    await baseline.stop();

    // Pass 3 and 4.
    const searchRow = rows.find((r) => r.info.key === 'search');
    const growth: Report['growth'] = !options.growth
      ? { skipped: options.quick ? '--quick' : '--no-growth' }
      : !searchRow?.baseline || !searchC1
        ? { skipped: 'scenario 3 was not run' }
        : await searchGrowth(options, {
            service: searchRow.service,
            baseline: searchRow.baseline,
            serviceC1: searchC1.service,
            baselineC1: searchC1.baseline,
          });
    const cluster: Report['cluster'] = options.cluster
      ? await clusterPass(options, dbUrl)
      : { skipped: options.quick ? '--quick' : '--no-cluster' };
    const events: Report['events'] = options.events
      ? await eventsPass(dbUrl, EVENTS)
      : { skipped: options.quick ? '--quick' : '--no-events' };
    const passed = await eventPasses(dbUrl, passKeys, options.quick);
    const replica = options.replica ? await replicaPass(options, dbUrl, loadKeys) : null;
    rows.push(...passed.rows);
    rows.sort(
      (a, b) => options.scenarios.indexOf(a.info.key) - options.scenarios.indexOf(b.info.key),
    );

    const report: Report = {
      mode,
      startedAt: new Date(started).toISOString(),
      finishedSeconds: (Date.now() - started) / 1000,
      environment: await environment(dbUrl),
      settings: runSettings(
        options,
        databaseName(dbUrl),
        `${fmt(spec.users)} users × ${spec.followsPerUser} follows, ${fmt(spec.meetings)} meetings of 2–12, one of ${spec.bigMeeting}, ${spec.invitations} pending invitations`,
      ),
      scenarios: rows,
      searchQueries: [...searchCounts].map(([q, count]) => ({ q, count })),
      peakRss,
      growth,
      cluster,
      peers,
      events,
      webhooks: passed.webhooks,
      resume: passed.resume,
      ...(replica && { replica }),
      notes: runNotes(options, ctx),
    };
    const path = writeReport(report);
    log(
      `\n${markdown(report, `${mode === 'quick' ? 'quick' : 'latest'}.svg`).split('## Search cost growth')[0]}`,
    );
    log(`Written ${path} (+ .svg, .json) in ${Math.round((Date.now() - started) / 1000)} s.`);
    // After the main report is written: a failure of the pass (it throws) keeps that report.
    if (options.fanOut) {
      await fanOutRun(dbUrl, options.quick, command);
    }
    if (options.budget) {
      await budgetRun(dbUrl, options.quick, command);
    }
    if (options.cache) {
      await cacheRun(dbUrl, options, command);
    }
  } finally {
    await service.stop();
    await baseline.stop();
    await cleanupWrites(dbUrl, writerId).catch(() => undefined);
    await cleanupScenarioData(dbUrl).catch(() => undefined);
    await cleanupWebhooks(dbUrl).catch(() => undefined);
    await cleanupResume(dbUrl).catch(() => undefined);
  }
}

/**
 * The scenarios measured by passes of their own, each on services it starts (no other service of
 * this run is up meanwhile: another instance's job queue would take the webhook jobs): SQL
 * statements on one start behind the counting proxy, then one timed run.
 */
async function eventPasses(
  dbUrl: string,
  keys: readonly PassKey[],
  quick: boolean,
): Promise<Pick<Report, 'webhooks' | 'resume'> & { rows: Report['scenarios'] }> {
  const skipped = (key: PassKey) => ({
    skipped: quick
      ? `--quick (name it in --scenarios to run it)`
      : `not among --scenarios (${key})`,
  });
  const out: Pick<Report, 'webhooks' | 'resume'> & { rows: Report['scenarios'] } = {
    webhooks: skipped('webhook-deliveries'),
    resume: skipped('resume'),
    rows: [],
  };
  for (const key of keys) {
    const info = scenarioInfo(key);
    const counted = await countPass(key, dbUrl);
    log(`${info.title}: timed run…`);
    const outcome = await timePass(key, dbUrl, quick);
    out.rows.push({
      info,
      service: passSummary([outcome]),
      baseline: null,
      statements: { service: counted.perUnit, baseline: Number.NaN, detail: counted.detail },
    });
    const details = outcome.details;
    if (details.key === 'webhook-deliveries' && 'perDelivery' in counted.raw) {
      out.webhooks = webhookSection(details.run, counted.raw, {
        count: WEBHOOKS.endpointOwners.length,
        owners: new Set(WEBHOOKS.endpointOwners).size,
      });
    } else if (details.key === 'resume' && 'perEvent' in counted.raw) {
      out.resume = resumeSection(details.run, counted.raw);
    }
  }
  return out;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    loadGenerator.close();
    killRunningServices();
    stopReplicaPair();
    process.exit(130);
  });
}

main(process.argv.slice(2)).then(
  () => {
    loadGenerator.close();
    process.exit(0);
  },
  (error: unknown) => {
    loadGenerator.close();
    killRunningServices();
    stopReplicaPair();
    log(
      error instanceof UsageError
        ? `bench: ${error.message}\nRun with --help for usage.`
        : `bench failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
