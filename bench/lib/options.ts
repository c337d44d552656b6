import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import {
  isPass,
  isReplicaScenario,
  type LoadKey,
  REPLICA_SCENARIOS,
  SCENARIOS,
  type ScenarioKey,
} from './scenarios';

export interface BenchOptions {
  quick: boolean;
  reseed: boolean;
  databaseUrl: string;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  rounds: number;
  scenarios: ScenarioKey[];
  growth: boolean;
  cluster: boolean;
  /** The events scenario (WebSocket subscribers, src/platform/live/). */
  events: boolean;
  /** Only the events scenario: printed, no results written. */
  eventsOnly: boolean;
  /** Profile mode: run these scenarios against `node --cpu-prof` and summarise. */
  profile: LoadKey[] | null;
  build: boolean;
  /** Extra environment of the service (e.g. METRICS=false), to measure what a feature costs. */
  serviceEnv: Record<string, string>;
  /** Accept-Encoding sent on every request to both targets (the baseline never compresses). */
  acceptEncoding: string | null;
  /** Also measure PostGraphile v5 on the meeting (installed into bench/peers/ on demand). */
  peers: boolean;
  /**
   * A/B mode: this git ref (build A) against the working tree (build B), round by round; with
   * --against-node, `node-<version>` (the report's name).
   */
  against: string | null;
  /** A/B of runtimes: the working tree on this Node.js binary (A) and on the bench's own (B). */
  againstNode: string | null;
  /**
   * Also the read scenarios on a primary and one streaming replica of its own, the service reading
   * from the replica (run/replica-pass.ts).
   */
  replica: boolean;
  /** Also the fan-out pass: myMeetingEvents subscribers under write load (run/fan-out-pass.ts). */
  fanOut: boolean;
  /** Only the fan-out pass, printed (and written to bench/results/fan-out.md). */
  fanOutOnly: boolean;
  /** Also the budget pass: a heavy caller beside a light one (run/budget-pass.ts). */
  budget: boolean;
  /** Only the budget pass, printed (and written to bench/results/budget.md). */
  budgetOnly: boolean;
  /** Also the answer cache pass (run/cache-pass.ts). */
  cache: boolean;
  /** Only the answer cache pass, printed (and written to bench/results/answer-cache.md). */
  cacheOnly: boolean;
  /** Only the cost pass (run/cost-pass.ts), printed and written to bench/results/costs.md. */
  costsOnly: boolean;
}

/** `text` in lines of at most `width` characters, each indented by `indent` spaces. */
function wrapped(text: string, indent: number, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, line].map((l) => `${' '.repeat(indent)}${l}`).join('\n');
}

export const USAGE = `Usage: npm run bench -- [options]

Benchmarks the service (REST and GraphQL, on PostgreSQL) against a bare node:http + pg baseline
that answers the same bytes, and writes bench/results/latest.md (+ latest.svg, latest.json).

Options:
  --quick                 smoke check in under a minute (short runs, no growth/cluster/events
                          passes, webhook-deliveries and resume only if named in --scenarios,
                          results in bench/results/quick.*); reuses whatever data is there
  --reseed                reload the benchmark data even when it is already there
  --database-url <url>    PostgreSQL (default: BENCH_DATABASE_URL, DATABASE_URL, or
                          postgres://postgres@127.0.0.1:5432/bench); a database whose name does
                          not contain "bench" is not touched: its server's "bench" database is used
  --connections <n>       concurrent connections (default 32, quick 8)
  --warmup <s>            warm-up seconds per run (default 5, quick 1)
  --duration <s>          measured seconds per run (default 15, quick 1; --against --quick 3)
  --rounds <n>            runs per target and scenario, alternating the order (default 2, quick 1;
                          with --against 4, quick 2)
  --scenarios <a,b,...>   only these, of:
${wrapped(SCENARIOS.map((s) => s.key).join(', '), 26, 100)}
                          webhook-deliveries and resume (passes with services of their own,
                          minutes each) run by default only in a full run without --against
  --no-growth             skip the 10k-vs-100k search growth pass
  --no-cluster            skip the single-process vs cluster pass
  --no-events             skip the events scenario (1,000 WebSocket subscribers)
  --events-only           run only the events scenario and print it (writes no results)
  --profile <a,b,...>     instead of benchmarking: run each scenario against the service under
                          node --cpu-prof and write bench/results/profile-<scenario>.md
  --no-build              use dist/ as it is (by default npm run build compiles the service)
  --service-env <K=V,...> extra environment of the service, e.g. METRICS=false,COMPRESSION=false
  --accept-encoding <e>   send Accept-Encoding: <e> (e.g. gzip) on every request to both targets
  --peers                 also measure PostGraphile v5 (amber) on the meeting, with and without
                          verifying the bearer token (npm ci into bench/peers/postgraphile first)
  --against <ref>         A/B: build the git ref in a worktree (its own npm run build) and run it
                          (A) and the working tree (B) in turn against the same database and
                          baseline; checks both answer the same bytes, writes
                          bench/results/ab-<ref>.md (B ÷ A per scenario, with the rounds' spread)
  --against-node <node>   A/B of runtimes: the working tree run by that Node.js binary (A) and by
                          the bench's own (B), as --against does; writes ab-node-<version>.md
  --replica               also the read scenarios on a PostgreSQL primary and streaming replica of
                          their own (a copy of the data), the service reading from the replica
                          (DATABASE_READ_URLS): req/s ÷ baseline and the share of the service's
                          reads the replica served (db_reads_total); those among --scenarios of:
${wrapped(REPLICA_SCENARIOS.join(', '), 26, 100)}
  --fan-out               also the fan-out pass: myMeetingEvents subscribers (WebSocket and SSE)
                          under 100 writes/s, beside 100 then 1,000 uninvolved ones, and a slow
                          one that must resume; fails on any event lost or doubled; writes
                          bench/results/fan-out.md (--quick: a 10 s write phase instead of 60 s)
  --fan-out-only          run only the fan-out pass and print it (writes bench/results/fan-out.md)
  --budget                also the budget pass: a caller sending the costliest operations it may
                          beside one reading its profile, on a service with the default
                          COST_BUDGET_PER_MINUTE and on one without; writes bench/results/budget.md
                          (--quick: 5 s phases instead of 20 s)
  --budget-only           run only the budget pass and print it (writes bench/results/budget.md)
  --cache                 also the answer cache pass: polling clients (9 in 10 requests with the
                          ETag they hold) and a meeting read by its 50 participants while renamed
                          once a second, on a service with RESPONSE_CACHE=on, against the
                          baseline's uncached reads; writes bench/results/answer-cache.md
  --cache-only            run only the answer cache pass and print it
  --costs-only            what one request of each read scenario costs the service and the
                          baseline, counted: system calls, bytes, TCP segments, PostgreSQL's calls,
                          GC (writes bench/results/costs.md; --scenarios picks among the reads)
  -h, --help              this help`;

export class UsageError extends Error {}

/** The version a Node.js binary reports (`v24.22.3`), or a usage error that says why not. */
export function nodeVersionOf(node: string): string {
  const probe = spawnSync(node, ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    throw new UsageError(`--against-node ${node}: not a Node.js binary that runs here`);
  }
  return probe.stdout.trim();
}

const KEYS = new Set<string>(SCENARIOS.map((s) => s.key));

/** --profile's scenarios: those autocannon measures (a pass starts services of its own). */
function profiledList(text: string): LoadKey[] {
  const keys = scenarioList(text);
  const passes = keys.filter(isPass);
  if (passes.length > 0) {
    throw new UsageError(`--profile runs request scenarios only, not ${passes.join(', ')}`);
  }
  return keys as LoadKey[];
}

function scenarioList(text: string): ScenarioKey[] {
  const keys = text
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  for (const key of keys) {
    if (!KEYS.has(key)) {
      throw new UsageError(`unknown scenario "${key}"`);
    }
  }
  return keys as ScenarioKey[];
}

function positive(
  name: string,
  text: string | undefined,
  fallback: number,
  integer = true,
): number {
  if (text === undefined) {
    return fallback;
  }
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`--${name} must be a positive ${integer ? 'whole ' : ''}number`);
  }
  return value;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/** The benchmark database: never one that is not named for benchmarks, never off this machine. */
function benchDatabaseUrl(given: string): string {
  const url = new URL(given);
  if (!LOOPBACK.test(url.hostname)) {
    throw new UsageError(`the benchmark talks to 127.0.0.1 only; ${url.hostname} is not local`);
  }
  if (!decodeURIComponent(url.pathname.slice(1)).includes('bench')) {
    url.pathname = '/bench';
  }
  return url.toString();
}

function keyValues(text: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const item of text.split(',').filter(Boolean)) {
    const at = item.indexOf('=');
    if (at <= 0) {
      throw new UsageError(`--service-env wants KEY=VALUE pairs, got "${item}"`);
    }
    pairs[item.slice(0, at)] = item.slice(at + 1);
  }
  return pairs;
}

/**
 * --replica: a pass of the plain run, on the read scenarios, reading `db_reads_total` from the
 * service's metrics; a usage error when it cannot run.
 */
function checkReplicaOptions(
  mode: { against: string | null; profile: string | undefined; eventsOnly: boolean | undefined },
  serviceEnv: Readonly<Record<string, string>>,
  scenarios: readonly ScenarioKey[],
): void {
  if (mode.against !== null || mode.profile !== undefined || mode.eventsOnly) {
    throw new UsageError(
      '--replica is a pass of the plain run: not with --against, --profile or --events-only',
    );
  }
  if (['false', '0', 'no'].includes(serviceEnv['METRICS'] ?? '')) {
    throw new UsageError(
      "--replica reads db_reads_total from the service's metrics: not with METRICS off",
    );
  }
  if (!scenarios.some(isReplicaScenario)) {
    throw new UsageError(
      `--replica runs the read scenarios among --scenarios: name one of ${REPLICA_SCENARIOS.join(', ')}`,
    );
  }
}

export function parseOptions(argv: readonly string[]): BenchOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        quick: { type: 'boolean' },
        reseed: { type: 'boolean' },
        'database-url': { type: 'string' },
        connections: { type: 'string' },
        warmup: { type: 'string' },
        duration: { type: 'string' },
        rounds: { type: 'string' },
        scenarios: { type: 'string' },
        'no-growth': { type: 'boolean' },
        'no-cluster': { type: 'boolean' },
        'no-events': { type: 'boolean' },
        'events-only': { type: 'boolean' },
        profile: { type: 'string' },
        'no-build': { type: 'boolean' },
        'service-env': { type: 'string' },
        'accept-encoding': { type: 'string' },
        peers: { type: 'boolean' },
        against: { type: 'string' },
        'against-node': { type: 'string' },
        replica: { type: 'boolean' },
        'fan-out': { type: 'boolean' },
        'fan-out-only': { type: 'boolean' },
        budget: { type: 'boolean' },
        'budget-only': { type: 'boolean' },
        cache: { type: 'boolean' },
        'cache-only': { type: 'boolean' },
        'costs-only': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    return 'help';
  }
  const quick = values.quick ?? false;
  const againstNode = values['against-node'] ?? null;
  if (againstNode !== null && values.against !== undefined) {
    throw new UsageError('--against and --against-node: one A/B at a time');
  }
  const against =
    againstNode !== null ? `node-${nodeVersionOf(againstNode)}` : (values.against ?? null);
  if (against !== null && (values.profile || values['events-only'] || values.peers)) {
    throw new UsageError(
      '--against measures the scenarios only: not with --profile, --events-only or --peers',
    );
  }
  const replica = values.replica ?? false;
  const fanOut = (values['fan-out'] ?? false) || (values['fan-out-only'] ?? false);
  if (fanOut && (against !== null || values.profile || values['events-only'])) {
    throw new UsageError(
      '--fan-out is a pass of the plain run: not with --against, --profile or --events-only',
    );
  }
  const budget = (values.budget ?? false) || (values['budget-only'] ?? false);
  if (budget && (against !== null || values.profile || values['events-only'])) {
    throw new UsageError(
      '--budget is a pass of the plain run: not with --against, --profile or --events-only',
    );
  }
  const cache = (values.cache ?? false) || (values['cache-only'] ?? false);
  if (cache && (against !== null || values.profile || values['events-only'])) {
    throw new UsageError(
      '--cache is a pass of the plain run: not with --against, --profile or --events-only',
    );
  }
  const serviceEnv = keyValues(values['service-env'] ?? '');
  const scenarios = values.scenarios
    ? scenarioList(values.scenarios)
    : SCENARIOS.map((s) => s.key).filter((key) => !(quick || against) || !isPass(key));
  if (replica) {
    checkReplicaOptions(
      { against, profile: values.profile, eventsOnly: values['events-only'] },
      serviceEnv,
      scenarios,
    );
  }
  const env = process.env;
  return {
    quick,
    reseed: values.reseed ?? false,
    databaseUrl: benchDatabaseUrl(
      values['database-url'] ??
        env['BENCH_DATABASE_URL'] ??
        env['DATABASE_URL'] ??
        'postgres://postgres@127.0.0.1:5432/bench',
    ),
    connections: positive('connections', values.connections, quick ? 8 : 32),
    warmupSeconds: positive('warmup', values.warmup, quick ? 1 : 5, false),
    // An A/B's ratios need runs long enough, and rounds enough, to see the spread.
    durationSeconds: positive('duration', values.duration, quick ? (against ? 3 : 1) : 15, false),
    rounds: positive('rounds', values.rounds, (quick ? 1 : 2) * (against ? 2 : 1)),
    scenarios,
    growth: !quick && !values['no-growth'],
    cluster: !quick && !values['no-cluster'],
    events: (!quick && !values['no-events']) || (values['events-only'] ?? false),
    eventsOnly: values['events-only'] ?? false,
    profile: values.profile ? profiledList(values.profile) : null,
    build: !values['no-build'],
    serviceEnv,
    acceptEncoding: values['accept-encoding'] ?? null,
    peers: values.peers ?? false,
    against,
    againstNode,
    replica,
    fanOut,
    fanOutOnly: values['fan-out-only'] ?? false,
    budget,
    budgetOnly: values['budget-only'] ?? false,
    cache,
    cacheOnly: values['cache-only'] ?? false,
    costsOnly: values['costs-only'] ?? false,
  };
}
