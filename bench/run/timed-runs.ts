import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { createWriteMeetings } from '../lib/db';
import type { BenchOptions } from '../lib/options';
import {
  contentionMeter,
  cpuMsBetween,
  cpuSnapshot,
  postgresPids,
  processTree,
  sampleRss,
  type Server,
} from '../lib/processes';
import type { LoadJob, LoadMessage, LoadPlan, LoadResult } from '../lib/protocol';
import { hasBaseline, type LoadKey, readRequests } from '../lib/scenarios';
import { summarize, type Summary } from '../lib/stats';
import { taggedBy } from './calendar-setup';
import type { BenchContext } from './prepare';
import { fmt, status } from './progress';

// The timed runs: autocannon in a child process against one target, with /proc sampling.

/** The load-generator child process (bench/loadgen.ts): one job at a time, with progress. */
class LoadGenerator {
  private child: ChildProcess | null = null;
  private current: {
    job: LoadJob;
    label: string;
    onMeasure: () => void;
    resolve: (result: LoadResult) => void;
    reject: (error: Error) => void;
  } | null = null;

  private start(): ChildProcess {
    const child = fork(join(__dirname, '..', 'loadgen.js'), [], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (message: LoadMessage) => this.onMessage(message));
    child.once('exit', (code) => {
      this.child = null;
      this.current?.reject(new Error(`the load generator exited (code ${code})`));
      this.current = null;
    });
    return child;
  }

  private onMessage(message: LoadMessage): void {
    const current = this.current;
    if (!current) {
      return;
    }
    const { job, label } = current;
    switch (message.type) {
      case 'phase':
        status(`${label}  ${message.phase === 'warmup' ? 'warm-up' : 'measuring'}…`);
        if (message.phase === 'measure') {
          current.onMeasure();
        }
        break;
      case 'tick': {
        const total = Math.ceil(
          message.phase === 'warmup' ? job.warmupSeconds : job.durationSeconds,
        );
        status(
          `${label}  ${message.phase === 'warmup' ? 'warm-up  ' : 'measuring'} ` +
            `${Math.min(message.second, total)}/${total} s  ${fmt(message.responses)} req/s`,
        );
        break;
      }
      case 'done':
        this.current = null;
        current.resolve(message.result);
        break;
      case 'failed':
        this.current = null;
        current.reject(new Error(`load generator for ${label} failed: ${message.message}`));
        break;
    }
  }

  /** Runs a job; `onMeasure` is called as the measured phase starts. */
  run(job: LoadJob, label: string, onMeasure: () => void): Promise<LoadResult> {
    this.child ??= this.start();
    const child = this.child;
    return new Promise((resolvePromise, reject) => {
      this.current = { job, label, onMeasure, resolve: resolvePromise, reject };
      child.send(job);
    });
  }

  close(): void {
    this.child?.disconnect();
    this.child = null;
  }
}

export const loadGenerator = new LoadGenerator();

async function planFor(
  ctx: BenchContext,
  key: LoadKey,
  target: Server,
  options: BenchOptions,
): Promise<LoadPlan> {
  if (key !== 'writes') {
    return { kind: 'cycle', requests: readRequests(key, await taggedBy(target, key, ctx)) };
  }
  // Enough fresh meetings that each gets only a few participants, whatever the rate.
  const count = Math.min(
    20_000,
    Math.max(300, Math.ceil((options.warmupSeconds + options.durationSeconds) * 300)),
  );
  const meetingIds = await createWriteMeetings(ctx.dbUrl, ctx.fixtures.writerId, count);
  return { kind: 'add-approve', ownerToken: ctx.writerToken, meetingIds, invitees: ctx.invitees };
}

export interface Measured {
  results: LoadResult[];
  peakRss: number;
  /** performance.now() when the last run's measured phase began. */
  measureStartedAt?: number;
}

/** Where a run goes and what it records: the target, the options, its label, the runs so far. */
type RunArgs = [
  target: Server,
  options: BenchOptions,
  label: string,
  into: Measured,
  connections?: number,
];

/** One run of a scenario against one target, sampling the target's RSS meanwhile. */
export async function measure(ctx: BenchContext, key: LoadKey, ...run: RunArgs): Promise<void> {
  await measurePlan(await planFor(ctx, key, run[0], run[1]), ...run);
}

/** One run of a load plan against one target (a scenario's, or a peer's own request). */
export async function measurePlan(
  plan: LoadPlan,
  ...[target, options, label, into, connections = options.connections]: RunArgs
): Promise<void> {
  const targetPids = processTree(target.child.pid as number);
  const sampler = sampleRss(target.child.pid as number);
  let meter = contentionMeter();
  let cpuAtStart = { target: new Map<number, number>(), database: new Map<number, number>() };
  let measureStartedAt = 0;
  const result = await loadGenerator.run(
    {
      url: target.url,
      connections,
      warmupSeconds: options.warmupSeconds,
      durationSeconds: options.durationSeconds,
      plan,
    },
    label,
    () => {
      measureStartedAt = performance.now();
      meter = contentionMeter();
      cpuAtStart = { target: cpuSnapshot(targetPids), database: cpuSnapshot(postgresPids()) };
    },
  );
  result.contention = meter.stop();
  result.targetCpuMs = cpuMsBetween(cpuAtStart.target, cpuSnapshot(targetPids));
  result.databaseCpuMs = cpuMsBetween(cpuAtStart.database, cpuSnapshot(postgresPids()));
  into.measureStartedAt = measureStartedAt;
  into.peakRss = Math.max(into.peakRss, sampler.stop());
  into.results.push(result);
  const rps = result.seconds > 0 ? result.ok / result.seconds : 0;
  const bad = result.responses - result.ok + result.errors + (result.mismatches ?? 0);
  status(
    `${label}  ${fmt(rps)} req/s, p50 ${result.latencies.length > 0 ? `${summarize([result], 0).p50.toFixed(1)} ms` : '–'}` +
      `${bad > 0 ? `  (${bad} wrong answers/errors!)` : ''}` +
      `${result.contention > 0.25 ? `  (other processes used ${result.contention.toFixed(1)} cores)` : ''}`,
    true,
  );
}

/** No runs yet. */
export const noRuns = (): Measured => ({ results: [], peakRss: 0 });

/**
 * Runs every side `rounds` times, rotating which goes first: round r starts with side r - 1 (two
 * sides: odd rounds `a, b`, even rounds `b, a`), so no side always runs on a warmer or cooler machine.
 */
export async function alternating<S>(
  rounds: number,
  sides: readonly S[],
  run: (side: S, round: number) => Promise<void>,
): Promise<void> {
  for (let round = 1; round <= rounds; round += 1) {
    for (let i = 0; i < sides.length; i += 1) {
      await run(sides[(round - 1 + i) % sides.length] as S, round);
    }
  }
}

/**
 * A scenario against both targets, `rounds` times, alternating which goes first; against the
 * service alone, and no baseline numbers, when the baseline does not answer it.
 */
export async function measureScenario(
  ctx: BenchContext,
  key: LoadKey,
  targets: { service: Server; baseline: Server },
  options: BenchOptions,
  title: string,
): Promise<{ service: Summary; baseline: Summary | null }> {
  if (hasBaseline(key)) {
    return measurePair(ctx, key, targets, options, title);
  }
  const runs = noRuns();
  for (let round = 1; round <= options.rounds; round += 1) {
    const label = `${title} · service  · round ${round}/${options.rounds}`;
    await measure(ctx, key, targets.service, options, label, runs);
  }
  return { service: summarize(runs.results, runs.peakRss), baseline: null };
}

/** A scenario against both targets, `rounds` times, alternating which goes first. */
export async function measurePair(
  ctx: BenchContext,
  key: LoadKey,
  targets: { service: Server; baseline: Server },
  options: BenchOptions,
  title: string,
  connections = options.connections,
): Promise<{ service: Summary; baseline: Summary }> {
  const runs = { service: noRuns(), baseline: noRuns() };
  await alternating(options.rounds, ['service', 'baseline'] as const, async (name, round) => {
    const label = `${title} · ${name.padEnd(8)} · round ${round}/${options.rounds}`;
    await measure(ctx, key, targets[name], options, label, runs[name], connections);
  });
  return {
    service: summarize(runs.service.results, runs.service.peakRss),
    baseline: summarize(runs.baseline.results, runs.baseline.peakRss),
  };
}
