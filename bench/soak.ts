import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../src/shared/free-port';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Client } from 'pg';

/**
 * Soak test (`npm run soak -- --minutes 10`; not part of CI): starts the built service
 * (dist/src/main.js) on PostgreSQL (DATABASE_URL, default the local server's database `soak`,
 * created if missing) or on the embedded database (--embedded, a temporary DATA_DIR), runs a fixed
 * concurrency of mixed reads and writes for the given time, samples the service's RSS from
 * /proc/<pid>/status, and reports errors, latencies, memory over time and the RSS trend over the
 * second half (a linear regression; "steady growth" above --max-slope MB/min).
 * Everything talks to 127.0.0.1 only; the run stops by itself (Ctrl-C stops it early, reported).
 */

const ROOT = resolve(__dirname, '../..');
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/soak';
const PASSWORD = 'soak-password-1';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    users: { type: 'string', default: '40' },
    'sample-seconds': { type: 'string', default: '10' },
    'max-slope': { type: 'string', default: '1' },
    embedded: { type: 'boolean', default: false },
    'database-url': { type: 'string' },
    fresh: { type: 'boolean', default: false },
    out: { type: 'string', default: join(ROOT, 'bench/results/soak.md') },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  console.log(`npm run soak -- [options]
  --minutes N           run time (default 10)
  --concurrency N       concurrent clients (default 8)
  --users N             users registered up front (default 40)
  --sample-seconds N    RSS sampling interval (default 10)
  --max-slope MB        RSS slope over the second half, MB/min, above which growth is flagged (default 1)
  --embedded            the embedded database (PostgreSQL child process) in a temporary directory
  --database-url URL    PostgreSQL (default $DATABASE_URL or ${DEFAULT_DATABASE_URL})
  --fresh               drop and recreate that database first
  --out FILE            report (default bench/results/soak.md)`);
  process.exit(0);
}

function positive(name: string, value: string | undefined): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) {
    console.error(`--${name} must be a positive number`);
    process.exit(2);
  }
  return parsed;
}

const options = {
  minutes: positive('minutes', args.minutes),
  concurrency: Math.round(positive('concurrency', args.concurrency)),
  users: Math.max(4, Math.round(positive('users', args.users))),
  sampleMs: positive('sample-seconds', args['sample-seconds']) * 1000,
  maxSlope: positive('max-slope', args['max-slope']),
  embedded: args.embedded ?? false,
  databaseUrl: args['database-url'] ?? process.env['DATABASE_URL'] ?? DEFAULT_DATABASE_URL,
  fresh: args.fresh ?? false,
  out: resolve(args.out ?? join(ROOT, 'bench/results/soak.md')),
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const mb = (kb: number) => kb / 1024;
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

// ---------------------------------------------------------------------------------------------
// Database and service

async function ensureDatabase(url: string, fresh: boolean): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(name)) {
    throw new Error(`unexpected database name in ${url}`);
  }
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    if (fresh) {
      await client.query(`drop database if exists "${name}" with (force)`);
    }
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`create database "${name}"`);
      console.log(`created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

interface Service {
  child: ChildProcess;
  url: string;
  errorLines: string[];
  exited: Promise<number | null>;
}

async function startService(env: NodeJS.ProcessEnv): Promise<Service> {
  const main = join(ROOT, 'dist/src/main.js');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [main], {
    env: { ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errorLines: string[] = [];
  const tail: string[] = [];
  const onLine = (line: string) => {
    tail.push(line);
    if (tail.length > 50) {
      tail.shift();
    }
    let level = 0;
    try {
      level = Number((JSON.parse(line) as { level?: number }).level ?? 0);
    } catch {
      level = 50; // not a log line: something printed by hand, most likely a failure
    }
    if (level >= 50) {
      errorLines.push(line.slice(0, 2000));
    }
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', onLine);
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', onLine);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let dead = false;
  void exited.then(() => {
    dead = true;
  });
  const deadline = performance.now() + 180_000;
  for (;;) {
    try {
      const ready = await fetch(`${url}/health/readiness`, { signal: AbortSignal.timeout(2000) });
      if (ready.status === 204) {
        return { child, url, errorLines, exited };
      }
    } catch {
      // not listening yet
    }
    if (dead || performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not become ready:\n${tail.join('\n')}`);
    }
    await sleep(250);
  }
}

function rssOf(pid: number): { rssKb: number; hwmKb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
    return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Requests and statistics

interface OpStats {
  count: number;
  statuses: Map<string, number>;
  latencies: number[];
}

const stats = new Map<string, OpStats>();
const errorsByStatus = new Map<string, number>();
const errorSamples: string[] = [];
let totalRequests = 0;
let totalErrors = 0;

function record(op: string, status: string, ms: number, expected: boolean, detail: string): void {
  let entry = stats.get(op);
  if (!entry) {
    entry = { count: 0, statuses: new Map(), latencies: [] };
    stats.set(op, entry);
  }
  entry.count += 1;
  entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
  entry.latencies.push(ms);
  totalRequests += 1;
  if (!expected) {
    totalErrors += 1;
    const key = `${status} ${op}`;
    errorsByStatus.set(key, (errorsByStatus.get(key) ?? 0) + 1);
    if (errorSamples.length < 20) {
      errorSamples.push(`${op} → ${status}: ${detail.slice(0, 300)}`);
    }
  }
}

interface Reply {
  status: number;
  body: unknown;
}

let baseUrl = '';

/** One request; records it under `op`; `expected` lists the statuses that are not errors. */
async function request(
  op: string,
  method: string,
  path: string,
  init: { token?: string; json?: unknown; expected?: number[] } = {},
): Promise<Reply | null> {
  const headers: Record<string, string> = {};
  if (init.token) {
    headers['authorization'] = `Bearer ${init.token}`;
  }
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
  }
  const started = performance.now();
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON
    }
    const graphqlErrors =
      path === '/graphql' && Array.isArray((body as { errors?: unknown } | null)?.errors);
    const expected = (init.expected ?? [200]).includes(response.status) && !graphqlErrors;
    record(op, String(response.status), ms, expected, text);
    return { status: response.status, body };
  } catch (error) {
    const ms = performance.now() - started;
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const name = error instanceof Error ? (cause ?? error.name) : 'ERROR';
    record(op, name, ms, false, String(error));
    return null;
  }
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

// ---------------------------------------------------------------------------------------------
// The workload

interface Actor {
  id: string;
  account: string;
  email: string;
  token: string;
}

interface TrackedMeeting {
  id: string;
  owner: Actor;
  participants: Actor[];
}

const actors: Actor[] = [];
const meetings: TrackedMeeting[] = [];
const MAX_TRACKED_MEETINGS = 400;
const runTag = `sk${randomBytes(3).toString('hex')}`;
let registered = 0;

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;

function others(actor: Actor, count: number): Actor[] {
  const pool = actors.filter((candidate) => candidate.id !== actor.id);
  const chosen: Actor[] = [];
  while (chosen.length < count && pool.length > 0) {
    chosen.push(pool.splice(Math.floor(Math.random() * pool.length), 1)[0] as Actor);
  }
  return chosen;
}

async function registerUser(
  op: string,
): Promise<{ id: string; account: string; email: string } | null> {
  registered += 1;
  const account = `${runTag}u${registered}`;
  const reply = await request(op, 'POST', '/api/v1/auth/register', {
    json: {
      name: `Soak user ${registered}`,
      account,
      email: `${account}@example.test`,
      password: PASSWORD,
      password_confirm: PASSWORD,
    },
    expected: [201],
  });
  return reply?.status === 201
    ? (reply.body as { id: string; account: string; email: string })
    : null;
}

async function login(op: string, email: string): Promise<string | null> {
  const reply = await request(op, 'POST', '/api/v1/auth/login', {
    json: { email, password: PASSWORD },
  });
  return reply?.status === 200 ? (reply.body as { access_token: string }).access_token : null;
}

async function setupUsers(count: number): Promise<void> {
  const queue = Array.from({ length: count }, (_, i) => i);
  await Promise.all(
    Array.from({ length: Math.min(4, count) }, async () => {
      while (queue.shift() !== undefined) {
        const user = await registerUser('setup: register');
        const token = user ? await login('setup: login', user.email) : null;
        if (user && token) {
          actors.push({ ...user, token });
        }
      }
    }),
  );
  if (actors.length < 4) {
    throw new Error(`could only set up ${actors.length} users`);
  }
}

const GRAPHQL_NESTED = `query Soak {
  me { id account followingCount followersCount }
  myMeetings(limit: 10) {
    id title status owner { id name }
    participants { status user { id account } }
  }
  meetingRequests(limit: 10) { id status meeting { id title owner { account } } }
  following(limit: 10) { count data { following { account } } }
}`;

const operations: Array<[weight: number, name: string, run: (actor: Actor) => Promise<void>]> = [
  [
    10,
    'GET /user/search',
    async (actor) => {
      const q = pick(actors).account.slice(0, 6 + Math.floor(Math.random() * 4));
      await request('GET /user/search', 'GET', `/api/v1/user/search?q=${q}&limit=10`, {
        token: actor.token,
      });
    },
  ],
  [
    8,
    'GET /user/me',
    (actor) => void0(request('GET /user/me', 'GET', '/api/v1/user/me', { token: actor.token })),
  ],
  [
    4,
    'GET /user/{account}',
    (actor) =>
      void0(
        request('GET /user/{account}', 'GET', `/api/v1/user/${pick(actors).account}`, {
          token: actor.token,
        }),
      ),
  ],
  [
    6,
    'POST /follow/follow',
    (actor) =>
      void0(
        request('POST /follow/follow', 'POST', `/api/v1/follow/follow/${others(actor, 1)[0]?.id}`, {
          token: actor.token,
        }),
      ),
  ],
  [
    4,
    'POST /follow/unfollow',
    (actor) =>
      void0(
        request(
          'POST /follow/unfollow',
          'POST',
          `/api/v1/follow/unfollow/${others(actor, 1)[0]?.id}`,
          { token: actor.token },
        ),
      ),
  ],
  [
    5,
    'GET /follow/following',
    (actor) =>
      void0(
        request('GET /follow/following', 'GET', '/api/v1/follow/following?limit=20', {
          token: actor.token,
        }),
      ),
  ],
  [
    6,
    'POST /meeting/create',
    async (actor) => {
      const invited = others(actor, 1 + Math.floor(Math.random() * 3));
      const reply = await request('POST /meeting/create', 'POST', '/api/v1/meeting/create', {
        token: actor.token,
        json: {
          meeting: {
            title: `Soak meeting ${Math.floor(Math.random() * 1e6)}`,
            start_time: new Date(Date.now() + 86_400_000 * (1 + Math.random() * 30)).toISOString(),
            location: 'Room 101, soak floor',
          },
          participants: invited.map((user) => ({ user_id: user.id })),
        },
        expected: [201],
      });
      if (reply?.status === 201) {
        meetings.push({
          id: (reply.body as { id: string }).id,
          owner: actor,
          participants: invited,
        });
        if (meetings.length > MAX_TRACKED_MEETINGS) {
          meetings.splice(0, meetings.length - MAX_TRACKED_MEETINGS);
        }
      }
    },
  ],
  [
    4,
    'POST /meeting/{id}/participants/add',
    async () => {
      const meeting = meetings.length > 0 ? pick(meetings) : null;
      const candidate = meeting
        ? others(meeting.owner, actors.length).find(
            (user) => !meeting.participants.some((p) => p.id === user.id),
          )
        : undefined;
      if (!meeting || !candidate) {
        return;
      }
      // 409: cancelled meanwhile (every invitee declined), or a concurrent add of the same user.
      const reply = await request(
        'POST /meeting/{id}/participants/add',
        'POST',
        `/api/v1/meeting/${meeting.id}/participants/add`,
        { token: meeting.owner.token, json: { user_id: candidate.id }, expected: [200, 409] },
      );
      if (reply?.status === 200 && !meeting.participants.some((p) => p.id === candidate.id)) {
        meeting.participants.push(candidate);
      }
    },
  ],
  [
    10,
    'GET /meeting/{id}',
    async () => {
      const meeting = meetings.length > 0 ? pick(meetings) : null;
      if (meeting) {
        const viewer =
          Math.random() < 0.5 ? meeting.owner : pick([meeting.owner, ...meeting.participants]);
        await request('GET /meeting/{id}', 'GET', `/api/v1/meeting/${meeting.id}`, {
          token: viewer.token,
        });
      }
    },
  ],
  [
    8,
    'GET /meeting/requests',
    (actor) =>
      void0(
        request('GET /meeting/requests', 'GET', '/api/v1/meeting/requests?limit=20', {
          token: actor.token,
        }),
      ),
  ],
  [
    4,
    'GET /meeting/index',
    (actor) =>
      void0(
        request('GET /meeting/index', 'GET', '/api/v1/meeting/index?limit=20', {
          token: actor.token,
        }),
      ),
  ],
  [
    5,
    'POST /meeting/{id}/approve',
    async () => {
      const meeting = meetings.length > 0 ? pick(meetings) : null;
      if (meeting && meeting.participants.length > 0) {
        // 409 MEETING_CLOSED: cancelled meanwhile — expected.
        await request(
          'POST /meeting/{id}/approve',
          'POST',
          `/api/v1/meeting/${meeting.id}/approve`,
          {
            token: pick(meeting.participants).token,
            expected: [200, 409],
          },
        );
      }
    },
  ],
  [
    2,
    'POST /meeting/{id}/decline',
    async () => {
      const meeting = meetings.length > 0 ? pick(meetings) : null;
      if (meeting && meeting.participants.length > 0) {
        await request(
          'POST /meeting/{id}/decline',
          'POST',
          `/api/v1/meeting/${meeting.id}/decline`,
          {
            token: pick(meeting.participants).token,
            expected: [200, 409],
          },
        );
      }
    },
  ],
  [
    10,
    'POST /graphql (nested)',
    (actor) =>
      void0(
        request('POST /graphql (nested)', 'POST', '/graphql', {
          token: actor.token,
          json: { query: GRAPHQL_NESTED },
        }),
      ),
  ],
  [1, 'POST /auth/login', (actor) => void0(login('POST /auth/login', actor.email))],
  [1, 'POST /auth/register', () => void0(registerUser('POST /auth/register'))],
];

/** Awaits a promise and drops its value. */
async function void0(promise: Promise<unknown>): Promise<void> {
  await promise;
}

const totalWeight = operations.reduce((sum, [weight]) => sum + weight, 0);

function pickOperation(): (actor: Actor) => Promise<void> {
  let roll = Math.random() * totalWeight;
  for (const [weight, , run] of operations) {
    roll -= weight;
    if (roll < 0) {
      return run;
    }
  }
  return (operations[0] as (typeof operations)[number])[2];
}

// ---------------------------------------------------------------------------------------------
// Run

interface Sample {
  elapsedS: number;
  rssMb: number;
  hwmMb: number;
  requests: number;
  errors: number;
  rps: number;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg();
  let dataDir: string | null = null;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(24).toString('hex'),
    LOG_LEVEL: 'warn',
    ACCESS_TOKEN_TTL: '86400',
    RATE_LIMIT_AUTH_PER_IP: '100000000',
    RATE_LIMIT_AUTH_PER_ACCOUNT: '100000000',
  };
  let databaseLabel: string;
  if (options.embedded) {
    dataDir = mkdtempSync(join(tmpdir(), 'meetings-soak-'));
    env['DATA_DIR'] = dataDir;
    databaseLabel = `the embedded database (${dataDir})`;
  } else {
    await ensureDatabase(options.databaseUrl, options.fresh);
    env['DATABASE_URL'] = options.databaseUrl;
    const shown = new URL(options.databaseUrl);
    shown.password = shown.password ? '***' : '';
    databaseLabel = `PostgreSQL (${shown.toString()})`;
  }

  console.log(`starting the service on ${databaseLabel}`);
  const service = await startService(env);
  baseUrl = service.url;
  const pid = service.child.pid as number;
  const cleanup = () => {
    service.child.kill('SIGKILL');
    if (dataDir) {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  process.once('exit', () => service.child.kill('SIGKILL'));

  try {
    console.log(`registering ${options.users} users`);
    await setupUsers(options.users);
    // Setup traffic is not part of the measured run.
    stats.clear();
    errorsByStatus.clear();
    totalRequests = 0;
    totalErrors = 0;

    const durationMs = options.minutes * 60_000;
    const t0 = performance.now();
    let deadline = t0 + durationMs;
    let stoppedEarly = false;
    process.once('SIGINT', () => {
      stoppedEarly = true;
      deadline = 0;
      console.log('\nstopping early (SIGINT)');
    });

    const samples: Sample[] = [];
    let lastRequests = 0;
    let lastAt = t0;
    const takeSample = () => {
      const now = performance.now();
      const memory = rssOf(pid);
      if (!memory) {
        return;
      }
      const sample: Sample = {
        elapsedS: Math.round((now - t0) / 1000),
        rssMb: round(mb(memory.rssKb)),
        hwmMb: round(mb(memory.hwmKb)),
        requests: totalRequests,
        errors: totalErrors,
        rps: now > lastAt ? round(((totalRequests - lastRequests) * 1000) / (now - lastAt)) : 0,
      };
      lastRequests = totalRequests;
      lastAt = now;
      samples.push(sample);
      console.log(
        `${String(sample.elapsedS).padStart(5)} s  RSS ${sample.rssMb.toFixed(1).padStart(7)} MB  ` +
          `${sample.requests} requests (${sample.rps}/s)  ${sample.errors} errors`,
      );
    };
    takeSample();
    const sampler = setInterval(takeSample, options.sampleMs);

    console.log(
      `running ${options.concurrency} clients for ${options.minutes} min (sampling every ${options.sampleMs / 1000} s)`,
    );
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (performance.now() < deadline) {
          await pickOperation()(pick(actors));
        }
      }),
    );
    clearInterval(sampler);
    takeSample();
    const elapsedMs = performance.now() - t0;

    // Graceful stop, as in production.
    service.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const exitCode = await Promise.race([
      service.exited,
      new Promise<string>((done) => {
        timer = setTimeout(() => done('timeout'), 30_000);
      }),
    ]);
    clearTimeout(timer);

    const report = buildReport({
      startedAt,
      elapsedMs,
      stoppedEarly,
      databaseLabel,
      samples,
      exitCode: String(exitCode),
      serviceErrors: service.errorLines,
      loadBefore,
      loadAfter: loadavg(),
    });
    mkdirSync(dirname(options.out), { recursive: true });
    writeFileSync(options.out, report.markdown);
    console.log(`\n${report.summary}\nreport: ${relative(process.cwd(), options.out)}`);
    process.exitCode = report.ok ? 0 : 1;
  } finally {
    cleanup();
  }
}

function buildReport(run: {
  startedAt: Date;
  elapsedMs: number;
  stoppedEarly: boolean;
  databaseLabel: string;
  samples: Sample[];
  exitCode: string;
  serviceErrors: string[];
  loadBefore: number[];
  loadAfter: number[];
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
  const ok = totalErrors === 0 && !growth && run.exitCode === '0' && run.serviceErrors.length === 0;
  const rssStart = first?.rssMb ?? 0;
  const rssEnd = last?.rssMb ?? 0;
  const peak = Math.max(0, ...samples.map((s) => s.hwmMb));

  const lines: string[] = [];
  lines.push('# Soak run', '');
  lines.push(
    `- started ${run.startedAt.toISOString()}, ran ${minutes.toFixed(1)} min` +
      (run.stoppedEarly ? ' (stopped early)' : ''),
    `- database: ${run.databaseLabel}`,
    `- ${options.concurrency} concurrent clients over ${actors.length} users; node ${process.version}, ` +
      `${cpus().length} cores, load average ${run.loadBefore.map((l) => l.toFixed(1)).join(' ')} at start, ` +
      `${run.loadAfter.map((l) => l.toFixed(1)).join(' ')} at end`,
    `- **${totalRequests} requests** (${(totalRequests / (run.elapsedMs / 1000)).toFixed(1)}/s), ` +
      `**${totalErrors} errors**; service error logs: ${run.serviceErrors.length}; ` +
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
  if (errorsByStatus.size === 0) {
    lines.push('None: every response had an expected status.', '');
  } else {
    lines.push('| status | operation | count |', '| --- | --- | ---: |');
    for (const [key, count] of [...errorsByStatus].sort((a, b) => b[1] - a[1])) {
      const [status, ...op] = key.split(' ');
      lines.push(`| ${status} | ${op.join(' ')} | ${count} |`);
    }
    lines.push(
      '',
      'First errors:',
      '',
      ...errorSamples.map((e) => `- \`${e.replace(/`/g, "'")}\``),
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
  for (const [op, entry] of [...stats].sort((a, b) => b[1].count - a[1].count)) {
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
    `${minutes.toFixed(1)} min, ${totalRequests} requests, ${totalErrors} errors, ` +
    `RSS ${rssStart.toFixed(1)} → ${rssEnd.toFixed(1)} MB, second-half slope ` +
    `${trend.slope.toFixed(2)} MB/min (R² ${trend.r2.toFixed(2)})${growth ? ' — STEADY GROWTH' : ''}, ` +
    `exit ${run.exitCode}`;
  return { markdown: lines.join('\n'), summary, ok };
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
