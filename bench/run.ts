import { type ChildProcess, execFileSync, fork, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import {
  cleanupWrites,
  createWriteMeetings,
  databaseName,
  databaseUrl,
  type DataSpec,
  ensureDatabase,
  ensureStatistics,
  type Fixtures,
  FULL_DATA,
  meetingState,
  readFixtures,
  seed,
  seedProblems,
  SMALL_DATA,
  withClient,
} from './lib/db';
import { type Answer, firstDifference, login, send } from './lib/http';
import { deriveKeys, signAccessToken, type TokenSettings } from './lib/jwt';
import { type BenchOptions, parseOptions, USAGE, UsageError } from './lib/options';
import { profileMarkdown, summarizeProfile } from './lib/profile';
import type { LoadJob, LoadMessage, LoadPlan, LoadResult, PlannedRequest } from './lib/protocol';
import {
  contentionMeter,
  cpuMsBetween,
  cpuSnapshot,
  killStarted,
  freePort,
  memoryOf,
  postgresPids,
  processTree,
  sampleRss,
  type Server,
  startServer,
  stopServer,
} from './lib/processes';
import { chart, markdown, type Report } from './lib/report';
import {
  addRequest,
  approveRequest,
  type Callers,
  readRequests,
  sendAcceptEncoding,
  SCENARIOS,
  type ScenarioKey,
} from './lib/scenarios';
import { summarize, type Summary } from './lib/stats';

/**
 * `npm run bench`: the service against a bare node:http + pg baseline, scenario by scenario.
 *   1. prepare the PostgreSQL benchmark database (seed unless the expected data is there)
 *   2. start the service (LOG_LEVEL=info) and the baseline; check that both answer the same bytes
 *      for every scenario and count SQL statements per request
 *   3. restart the service with LOG_LEVEL=warn and measure each scenario with autocannon (in a
 *      child process), service and baseline alternating
 *   4. search cost growth (10k vs 100k users) and single process vs cluster
 *   5. write bench/results/latest.md, latest.svg and latest.json
 */

const ROOT = resolve(__dirname, '../..');
const RESULTS = join(ROOT, 'bench', 'results');
const SECRET = 'bench-only-signing-secret-0123456789abcdef';
const TOKENS: TokenSettings = { issuer: 'http://127.0.0.1/bench', audience: 'meeting-api' };
const PASSWORD = 'password123';
const INVITEES = 1000;

const keys = deriveKeys(SECRET);

// ---- output ---------------------------------------------------------------------------------

const isTty = process.stderr.isTTY;
let statusShown = false;

const startedAt = Date.now();
const elapsed = (): string => `[${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s]`;

function log(message: string): void {
  if (statusShown) {
    process.stderr.write('\r\x1b[K');
    statusShown = false;
  }
  process.stderr.write(`${elapsed()} ${message}\n`);
}

/** One progress line, rewritten in place on a terminal (plain lines at phase ends otherwise). */
function status(message: string, final = false): void {
  if (isTty) {
    process.stderr.write(`\r\x1b[K${elapsed()} ${message}`);
    statusShown = true;
    if (final) {
      process.stderr.write('\n');
      statusShown = false;
    }
  } else if (final) {
    process.stderr.write(`${elapsed()} ${message}\n`);
  }
}

const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

// ---- build ----------------------------------------------------------------------------------

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Runs `npm run build` when dist/ is missing or older than src/ or rest/. */
function ensureBuilt(options: BenchOptions): void {
  const main = join(ROOT, 'dist/src/main.js');
  const built = existsSync(main) ? statSync(main).mtimeMs : 0;
  const sources = Math.max(newestMtime(join(ROOT, 'src')), newestMtime(join(ROOT, 'rest')));
  if (built >= sources || (!options.build && built > 0)) {
    return;
  }
  log(
    built === 0
      ? 'Building the service (npm run build)…'
      : 'src/ changed: rebuilding (npm run build)…',
  );
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error('npm run build failed');
  }
}

// ---- servers ----------------------------------------------------------------------------------

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ']) {
    const value = process.env[name];
    if (value !== undefined) {
      env[name] = value;
    }
  }
  return env;
}

/** --service-env: extra environment of every service process started. */
let serviceEnvOverrides: Record<string, string> = {};

async function startService(
  dbUrl: string,
  logLevel: 'info' | 'warn',
  options: { script?: string; nodeArgs?: string[]; env?: Record<string, string> } = {},
): Promise<Server> {
  return startServer({
    name: 'service',
    nodeArgs: [...(options.nodeArgs ?? []), join(ROOT, options.script ?? 'dist/src/main.js')],
    cwd: ROOT,
    env: {
      ...baseEnv(),
      NODE_ENV: 'production',
      JWT_SECRET: SECRET,
      JWT_ISSUER: TOKENS.issuer,
      JWT_AUDIENCE: TOKENS.audience,
      DATABASE_URL: dbUrl,
      LOG_LEVEL: logLevel,
      ...serviceEnvOverrides,
      ...options.env,
    },
    port: await freePort(),
    readyPath: '/health/readiness',
  });
}

async function startBaseline(dbUrl: string): Promise<Server> {
  return startServer({
    name: 'baseline',
    nodeArgs: [join(ROOT, 'dist/bench/baseline/server.js')],
    cwd: ROOT,
    env: {
      ...baseEnv(),
      NODE_ENV: 'production',
      JWT_SECRET: SECRET,
      JWT_ISSUER: TOKENS.issuer,
      JWT_AUDIENCE: TOKENS.audience,
      DATABASE_URL: dbUrl,
      DB_POOL_SIZE: '10',
    },
    port: await freePort(),
    readyPath: '/health/readiness',
  });
}

// ---- data and callers -------------------------------------------------------------------------

async function prepareDatabase(url: string, spec: DataSpec, reseed: boolean): Promise<void> {
  const name = databaseName(url);
  if (await ensureDatabase(url)) {
    log(`Created database ${name}.`);
  }
  const problems = reseed ? ['--reseed given'] : await seedProblems(url, spec);
  if (problems.length === 0) {
    log(`Database ${name} holds the expected data (${fmt(spec.users)} users): not reseeding.`);
    if (await ensureStatistics(url)) {
      log(`Ran VACUUM ANALYZE on ${name}: its tables had no planner statistics.`);
    }
    return;
  }
  log(
    `Seeding ${name} with ${fmt(spec.users)} users (${problems.join('; ')}); ` +
      `${spec.users >= 50_000 ? 'this takes a minute or two' : 'this takes a few seconds'}…`,
  );
  await seed(url, spec);
  const left = await seedProblems(url, spec);
  if (left.length > 0) {
    throw new Error(`after seeding, ${name} still lacks: ${left.join('; ')}`);
  }
}

interface BenchContext {
  dbUrl: string;
  fixtures: Fixtures;
  callers: Callers;
  writerToken: string;
  invitees: { id: string; token: string }[];
}

async function prepareContext(dbUrl: string, service: Server): Promise<BenchContext> {
  const fixtures = await readFixtures(dbUrl, INVITEES);
  const jwks = (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as {
    keys?: { x?: string }[];
  };
  if (jwks.keys?.[0]?.x !== keys.x) {
    throw new Error(
      "the key derived from JWT_SECRET (bench/lib/jwt.ts) is not the service's: the key derivation in src/auth/keys.ts changed",
    );
  }
  const [demo, inbox, busy] = await Promise.all([
    login(service.url, fixtures.demoEmail, PASSWORD),
    login(service.url, fixtures.inboxEmail, PASSWORD),
    login(service.url, fixtures.busy.email, PASSWORD),
  ]);
  return {
    dbUrl,
    fixtures,
    callers: { demo, inbox, busy },
    writerToken: signAccessToken(keys, TOKENS, fixtures.writerId),
    invitees: fixtures.invitees.map((id) => ({ id, token: signAccessToken(keys, TOKENS, id) })),
  };
}

// ---- equality and SQL statements ------------------------------------------------------------

/** The same body with the values of the given top-level fields replaced by placeholders. */
function masked(body: string, fields: Readonly<Record<string, string>>): string {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return body;
  }
  let text = body;
  for (const [field, placeholder] of Object.entries(fields)) {
    const value = parsed[field];
    if (typeof value === 'string') {
      text = text.split(JSON.stringify(value)).join(`"<${placeholder}>"`);
    }
  }
  return text;
}

interface Statements {
  service: number;
  baseline: number;
  detail?: string;
}

async function baselineStats(baseline: Server): Promise<{ requests: number; statements: number }> {
  return (await (await fetch(`${baseline.url}/__stats`)).json()) as {
    requests: number;
    statements: number;
  };
}

/** `sqlStatements` of the request log line of request `reqId` (waits for it a little). */
async function loggedStatements(service: Server, mark: number, reqId: string): Promise<number> {
  for (let waited = 0; waited < 1000; waited += 10) {
    for (const line of service.lines.slice(mark)) {
      if (line.includes('"sqlStatements"')) {
        const entry = JSON.parse(line) as { reqId?: string; sqlStatements?: number };
        if (entry.reqId === reqId && typeof entry.sqlStatements === 'number') {
          return entry.sqlStatements;
        }
      }
    }
    await new Promise((done) => setTimeout(done, 10));
  }
  return Number.NaN;
}

interface Exchange {
  service: Answer;
  baseline: Answer;
  /** SQL statements each side spent on the request (NaN for the service without info logs). */
  sql: { service: number; baseline: number };
}

let exchanges = 0;

/** One request to each target, one after the other, counting the statements each one sent. */
async function exchange(
  service: Server,
  baseline: Server,
  toService: PlannedRequest,
  toBaseline: PlannedRequest,
  countStatements: boolean,
): Promise<Exchange> {
  const mark = service.lines.length;
  exchanges += 1;
  const reqId = `bench-${exchanges}`;
  const a = await send(service.url, {
    ...toService,
    headers: { ...toService.headers, 'x-request-id': reqId },
  });
  const serviceSql = countStatements ? await loggedStatements(service, mark, reqId) : Number.NaN;
  const before = await baselineStats(baseline);
  const b = await send(baseline.url, toBaseline);
  const after = await baselineStats(baseline);
  return {
    service: a,
    baseline: b,
    sql: { service: serviceSql, baseline: after.statements - before.statements },
  };
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

interface CheckOutcome {
  statements: Map<ScenarioKey, Statements>;
  /** Matches of each search text (the `count` the service answered). */
  searchCounts: Map<string, number>;
}

/**
 * Every scenario's requests against both targets: same status, same bytes (writes: the same
 * bytes but for the new participant's id, meeting id and timestamps, and the same stored state).
 * With the service logging requests (LOG_LEVEL=info), also counts SQL statements per request.
 */
async function checkEquality(
  ctx: BenchContext,
  service: Server,
  baseline: Server,
  scenarios: readonly ScenarioKey[],
  countStatements: boolean,
): Promise<CheckOutcome> {
  const problems: string[] = [];
  const statements = new Map<ScenarioKey, Statements>();
  const searchCounts = new Map<string, number>();
  const compare = (label: string, a: Answer, b: Answer): void => {
    if (a.status !== b.status || a.body !== b.body) {
      problems.push(
        `${label}: service ${a.status}, baseline ${b.status}; ${firstDifference(a.body, b.body)}`,
      );
    }
  };
  for (const key of scenarios) {
    if (key === 'writes') {
      const [m1, m2] = (await createWriteMeetings(ctx.dbUrl, ctx.fixtures.writerId, 2)) as [
        string,
        string,
      ];
      const invitee = ctx.invitees[0] as { id: string; token: string };
      const volatile = {
        id: 'id',
        meeting_id: 'meeting',
        created_at: 'timestamp',
        updated_at: 'timestamp',
      };
      const sql = new Map<string, Exchange['sql']>();
      for (const step of ['add', 'add again', 'approve', 'approve again']) {
        const request = (meetingId: string): PlannedRequest =>
          step.startsWith('add')
            ? addRequest(ctx.writerToken, meetingId, invitee.id)
            : approveRequest(invitee.token, meetingId);
        const x = await exchange(service, baseline, request(m1), request(m2), countStatements);
        sql.set(step, x.sql);
        compare(
          `writes: ${step}`,
          { status: x.service.status, body: masked(x.service.body, volatile) },
          { status: x.baseline.status, body: masked(x.baseline.body, volatile) },
        );
        if ((step === 'add' || step === 'approve') && x.service.status !== 200) {
          problems.push(
            `writes: the service refused to ${step} (${x.service.status} ${x.service.body})`,
          );
        }
      }
      const [s1, s2] = await Promise.all([
        meetingState(ctx.dbUrl, m1),
        meetingState(ctx.dbUrl, m2),
      ]);
      const state = (s: typeof s1): string =>
        `${s.status} [${s.participants.map((p) => p.split(':')[1]).join(', ')}]`;
      if (state(s1) !== state(s2)) {
        problems.push(`writes: stored state differs: service ${state(s1)}, baseline ${state(s2)}`);
      }
      const add = sql.get('add') as Exchange['sql'];
      const approve = sql.get('approve') as Exchange['sql'];
      statements.set(key, {
        service: (add.service + approve.service) / 2,
        baseline: (add.baseline + approve.baseline) / 2,
        detail:
          `add: service ${add.service}, baseline ${add.baseline}; ` +
          `approve: service ${approve.service}, baseline ${approve.baseline} ` +
          '(BEGIN/COMMIT not counted on either side)',
      });
      continue;
    }
    const counts = { service: [] as number[], baseline: [] as number[] };
    for (const request of readRequests(key, ctx.fixtures, ctx.callers)) {
      const x = await exchange(service, baseline, request, request, countStatements);
      compare(`${key} ${request.method} ${request.path}`, x.service, x.baseline);
      counts.service.push(x.sql.service);
      counts.baseline.push(x.sql.baseline);
      if (x.service.status !== 200) {
        problems.push(
          `${key} ${request.path}: the service answered ${x.service.status}: ${x.service.body.slice(0, 300)}`,
        );
      } else if (key === 'search') {
        const q = new URLSearchParams(request.path.split('?')[1]).get('q') ?? '';
        searchCounts.set(q, (JSON.parse(x.service.body) as { count: number }).count);
      }
    }
    const distinct = [...new Set(counts.service)];
    statements.set(key, {
      service: mean(counts.service),
      baseline: mean(counts.baseline),
      ...(distinct.length > 1 ? { detail: `service per request: ${distinct.join(', ')}` } : {}),
    });
  }
  if (problems.length > 0) {
    throw new Error(
      `the baseline does not answer what the service answers, so the comparison would mean nothing:\n  - ${problems.join('\n  - ')}`,
    );
  }
  return { statements, searchCounts };
}

// ---- load ---------------------------------------------------------------------------------------

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
    const child = fork(join(__dirname, 'loadgen.js'), [], {
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

const loadGenerator = new LoadGenerator();

async function planFor(
  ctx: BenchContext,
  key: ScenarioKey,
  options: BenchOptions,
): Promise<LoadPlan> {
  if (key !== 'writes') {
    return { kind: 'cycle', requests: readRequests(key, ctx.fixtures, ctx.callers) };
  }
  // Enough fresh meetings that each gets only a few participants, whatever the rate.
  const count = Math.min(
    20_000,
    Math.max(300, Math.ceil((options.warmupSeconds + options.durationSeconds) * 300)),
  );
  const meetingIds = await createWriteMeetings(ctx.dbUrl, ctx.fixtures.writerId, count);
  return { kind: 'add-approve', ownerToken: ctx.writerToken, meetingIds, invitees: ctx.invitees };
}

interface Measured {
  results: LoadResult[];
  peakRss: number;
  /** performance.now() when the last run's measured phase began. */
  measureStartedAt?: number;
}

/** One run of a scenario against one target, sampling the target's RSS meanwhile. */
async function measure(
  ctx: BenchContext,
  key: ScenarioKey,
  target: Server,
  options: BenchOptions,
  label: string,
  into: Measured,
  connections = options.connections,
): Promise<void> {
  const plan = await planFor(ctx, key, options);
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
  const bad = result.responses - result.ok + result.errors;
  status(
    `${label}  ${fmt(rps)} req/s, p50 ${result.latencies.length > 0 ? `${summarize([result], 0).p50.toFixed(1)} ms` : '–'}` +
      `${bad > 0 ? `  (${bad} non-2xx/errors!)` : ''}` +
      `${result.contention > 0.25 ? `  (other processes used ${result.contention.toFixed(1)} cores)` : ''}`,
    true,
  );
}

/** A scenario against both targets, `rounds` times, alternating which goes first. */
async function measurePair(
  ctx: BenchContext,
  key: ScenarioKey,
  targets: { service: Server; baseline: Server },
  options: BenchOptions,
  title: string,
  connections = options.connections,
): Promise<{ service: Summary; baseline: Summary }> {
  const runs = {
    service: { results: [], peakRss: 0 } as Measured,
    baseline: { results: [], peakRss: 0 } as Measured,
  };
  for (let round = 1; round <= options.rounds; round += 1) {
    const order =
      round % 2 === 1 ? (['service', 'baseline'] as const) : (['baseline', 'service'] as const);
    for (const name of order) {
      const label = `${title} · ${name.padEnd(8)} · round ${round}/${options.rounds}`;
      await measure(ctx, key, targets[name], options, label, runs[name], connections);
    }
  }
  return {
    service: summarize(runs.service.results, runs.service.peakRss),
    baseline: summarize(runs.baseline.results, runs.baseline.peakRss),
  };
}

// ---- report helpers -------------------------------------------------------------------------------

function gitDescription(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'rest'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${commit} + uncommitted changes in src/ or rest/` : commit;
  } catch {
    return 'unknown';
  }
}

async function environment(dbUrl: string): Promise<Record<string, string>> {
  const version = await withClient(dbUrl, async (client) => {
    const row = (await client.query<{ v: string }>("select current_setting('server_version') as v"))
      .rows[0];
    return row?.v ?? 'unknown';
  });
  const autocannon = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules/autocannon/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  return {
    commit: gitDescription(),
    node: process.version,
    cpu: `${cpus()[0]?.model ?? 'unknown'} × ${availableParallelism()} (shared by load generator, service, baseline and PostgreSQL)`,
    memory: `${(totalmem() / 1073741824).toFixed(0)} GiB`,
    postgresql: `${version} on 127.0.0.1`,
    autocannon,
    'service start': '`node dist/src/main.js`, NODE_ENV=production, DB_POOL_SIZE=10 (default)',
    'baseline start': '`node dist/bench/baseline/server.js`, pg pool of 10',
  };
}

function writeReport(report: Report): string {
  mkdirSync(RESULTS, { recursive: true });
  const name = report.mode === 'quick' ? 'quick' : 'latest';
  writeFileSync(join(RESULTS, `${name}.svg`), chart(report));
  writeFileSync(join(RESULTS, `${name}.md`), markdown(report, `${name}.svg`));
  writeFileSync(join(RESULTS, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  return join('bench', 'results', `${name}.md`);
}

// ---- the passes -----------------------------------------------------------------------------------

async function searchGrowth(
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
    await stopServer(service);
    await stopServer(baseline);
  }
}

async function clusterPass(options: BenchOptions, ctxUrl: string): Promise<Report['cluster']> {
  if (!existsSync(join(ROOT, 'dist/src/cluster.js'))) {
    return { skipped: 'dist/src/cluster.js does not exist (no cluster start mode yet)' };
  }
  const workers = availableParallelism();
  const key: ScenarioKey = 'meeting-rest';
  const runs = {
    single: { results: [], peakRss: 0 } as Measured,
    cluster: { results: [], peakRss: 0 } as Measured,
  };
  for (let round = 1; round <= options.rounds; round += 1) {
    const order =
      round % 2 === 1 ? (['single', 'cluster'] as const) : (['cluster', 'single'] as const);
    for (const mode of order) {
      const service = await startService(ctxUrl, 'warn', {
        script: mode === 'single' ? 'dist/src/main.js' : 'dist/src/cluster.js',
        env: mode === 'cluster' ? { CLUSTER_WORKERS: String(workers) } : {},
      });
      try {
        const ctx = await prepareContext(ctxUrl, service);
        await measure(
          ctx,
          key,
          service,
          options,
          `1. REST meeting · ${mode.padEnd(7)} · round ${round}/${options.rounds}`,
          runs[mode],
        );
      } finally {
        await stopServer(service);
      }
    }
  }
  return {
    workers,
    scenario: '1 (REST meeting, 50 participants)',
    single: summarize(runs.single.results, runs.single.peakRss),
    cluster: summarize(runs.cluster.results, runs.cluster.peakRss),
  };
}

/** --profile: each scenario against `node --cpu-prof dist/src/main.js`, summarised. */
async function profileMode(
  options: BenchOptions,
  scenarios: readonly ScenarioKey[],
): Promise<void> {
  const dir = join(RESULTS, 'profiles');
  mkdirSync(dir, { recursive: true });
  const sections: string[] = ['# CPU profiles of the service', ''];
  for (const key of scenarios) {
    const file = `${key}.cpuprofile`;
    const service = await startService(options.databaseUrl, 'warn', {
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${file}`],
    });
    const run: Measured = { results: [], peakRss: 0 };
    try {
      const ctx = await prepareContext(options.databaseUrl, service);
      await measure(ctx, key, service, options, `profile ${key}`, run);
    } finally {
      await stopServer(service);
    }
    const title = SCENARIOS.find((s) => s.key === key)?.title ?? key;
    const skipMs = (run.measureStartedAt ?? service.spawnedAt) - service.spawnedAt;
    const summary = summarizeProfile(join(dir, file), skipMs);
    const rps = summarize(run.results, 0).rps;
    const section = profileMarkdown(
      `${title}: ${options.durationSeconds} s at ${options.connections} connections, ${fmt(rps)} req/s ` +
        `(samples of the measured phase only)`,
      summary,
    );
    writeFileSync(join(RESULTS, `profile-${key}.md`), `${section}\n`);
    sections.push(section);
    log(section);
  }
  await cleanupWrites(options.databaseUrl, (await readFixtures(options.databaseUrl, 1)).writerId);
  writeFileSync(join(RESULTS, 'profiles.md'), sections.join('\n'));
  log(
    `Profiles in ${join('bench', 'results', 'profiles')}; summaries in bench/results/profiles.md ` +
      'and profile-<scenario>.md',
  );
}

async function main(argv: readonly string[]): Promise<void> {
  const parsed = parseOptions(argv);
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const options = parsed;
  serviceEnvOverrides = options.serviceEnv;
  sendAcceptEncoding(options.acceptEncoding);
  const started = Date.now();
  ensureBuilt(options);
  const mode = options.quick ? 'quick' : 'full';

  // The data: the full set, or for --quick whatever is there (else the small set).
  let dbUrl = options.databaseUrl;
  let spec = FULL_DATA;
  if (options.quick && !options.reseed) {
    await ensureDatabase(dbUrl);
    if ((await seedProblems(dbUrl, FULL_DATA)).length > 0) {
      dbUrl = databaseUrl(dbUrl, `${databaseName(dbUrl)}_10k`);
      spec = SMALL_DATA;
      log(
        `--quick: ${databaseName(options.databaseUrl)} is not seeded; using ${databaseName(dbUrl)} (10,000 users).`,
      );
    }
  }
  await prepareDatabase(dbUrl, spec, options.reseed);
  options.databaseUrl = dbUrl;

  if (options.profile) {
    await profileMode(options, options.profile);
    return;
  }

  const writerId = (await readFixtures(dbUrl, 1)).writerId;
  await cleanupWrites(dbUrl, writerId);

  // Pass 1: equality and SQL statements, with the service logging every request.
  log('Starting the service (LOG_LEVEL=info) and the baseline…');
  let service = await startService(dbUrl, 'info');
  const baseline = await startBaseline(dbUrl);
  try {
    let ctx = await prepareContext(dbUrl, service);
    const { statements, searchCounts } = await checkEquality(
      ctx,
      service,
      baseline,
      options.scenarios,
      true,
    );
    log(`Bodies are byte-for-byte equal for all ${options.scenarios.length} scenarios.`);
    for (const key of options.scenarios) {
      const s = statements.get(key);
      log(
        `  SQL statements per request, ${key}: service ${s?.service.toFixed(1)}, baseline ${s?.baseline.toFixed(1)}`,
      );
    }
    // Pass 2: timed, the service logging warnings only (--quick keeps it as it is, logs and all).
    if (!options.quick) {
      await stopServer(service);
      log('Restarting the service with LOG_LEVEL=warn for the timed runs.');
      service = await startService(dbUrl, 'warn');
      ctx = await prepareContext(dbUrl, service);
    }
    const rows: Report['scenarios'] = [];
    let searchC1: { service: Summary; baseline: Summary } | null = null;
    for (const key of options.scenarios) {
      const info = SCENARIOS.find((s) => s.key === key) as (typeof SCENARIOS)[number];
      const pair = await measurePair(ctx, key, { service, baseline }, options, info.title);
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
    const peakRss = {
      service: memoryOf([service.child.pid as number]).hwm,
      baseline: memoryOf([baseline.child.pid as number]).hwm,
    };
    await stopServer(service);
    await stopServer(baseline);

    // Pass 3 and 4.
    const searchRow = rows.find((r) => r.info.key === 'search');
    const growth: Report['growth'] = !options.growth
      ? { skipped: options.quick ? '--quick' : '--no-growth' }
      : !searchRow || !searchC1
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

    const report: Report = {
      mode,
      startedAt: new Date(started).toISOString(),
      finishedSeconds: (Date.now() - started) / 1000,
      environment: await environment(dbUrl),
      settings: {
        connections: options.connections,
        warmupSeconds: options.warmupSeconds,
        durationSeconds: options.durationSeconds,
        rounds: options.rounds,
        database: databaseName(dbUrl),
        data: `${fmt(spec.users)} users × ${spec.followsPerUser} follows, ${fmt(spec.meetings)} meetings of 2–12, one of ${spec.bigMeeting}, ${spec.invitations} pending invitations`,
      },
      scenarios: rows,
      searchQueries: [...searchCounts].map(([q, count]) => ({ q, count })),
      peakRss,
      growth,
      cluster,
      notes: [
        `Timed runs use LOG_LEVEL=${options.quick ? 'info (--quick does not restart the service)' : 'warn'}; SQL statements per request come from the equality pass with LOG_LEVEL=info (the service's \`sqlStatements\` log field; the baseline counts its own; neither counts BEGIN/COMMIT).`,
        ...(Object.keys(options.serviceEnv).length > 0
          ? [`Service environment for this run: ${JSON.stringify(options.serviceEnv)}.`]
          : []),
        ...(options.acceptEncoding
          ? [
              `Every request sent Accept-Encoding: ${options.acceptEncoding} (the baseline never compresses).`,
            ]
          : []),
        'The service caches verified access tokens (src/auth/tokens.ts); the baseline verifies the signature on every request, as specified.',
        `Bodies of every scenario were checked byte-for-byte equal before measuring (writes: equal but for the new participant's id, meeting id and timestamps, and the same stored statuses).`,
        'The baseline is the practical limit for this stack: it verifies the same EdDSA token, loads the caller and runs the fewest SQL statements (joins instead of per-relation queries) with prepared statements.',
        `Writes: each add goes to a fresh meeting (created before each run, deleted after the scenario), each approve is by the user just added; the caller of "my meetings" is ${ctx.fixtures.busy.email} (${ctx.fixtures.busy.meetings} meetings).`,
      ],
    };
    const path = writeReport(report);
    log(
      `\n${markdown(report, `${mode === 'quick' ? 'quick' : 'latest'}.svg`).split('## Search cost growth')[0]}`,
    );
    log(`Written ${path} (+ .svg, .json) in ${Math.round((Date.now() - started) / 1000)} s.`);
  } finally {
    await stopServer(service);
    await stopServer(baseline);
    await cleanupWrites(dbUrl, writerId).catch(() => undefined);
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    loadGenerator.close();
    killStarted();
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
    killStarted();
    log(
      error instanceof UsageError
        ? `bench: ${error.message}\nRun with --help for usage.`
        : `bench failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
