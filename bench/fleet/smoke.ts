import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { run } from './commands';
import { type Fleet, fleetUnavailable, startFleet } from './fleet';
import { STATE_DIR } from './state-dir';

// A self-check of the fleet, run by hand (as root, after `npm run build`):
//   tsc -p bench/tsconfig.json && node dist/bench/fleet/smoke.js [--fail-start] [--hosts=N]
// Starts a fleet, goes through every fault, closes it and checks that nothing is left.

const args = process.argv.slice(2);
const HOSTS = Number(
  /^--hosts=(\d+)$/.exec(args.find((a) => a.startsWith('--hosts=')) ?? '')?.[1] ?? 3,
);
const SERVICE_ENV = {
  JWT_SECRET: 'fleet-smoke-signing-secret-0123456789abcdef',
  JWT_ISSUER: 'http://127.0.0.1/fleet-smoke',
  JWT_AUDIENCE: 'meeting-api',
  RATE_LIMIT_AUTH_PER_IP: '1000000',
  RATE_LIMIT_AUTH_PER_ACCOUNT: '1000000',
};

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(2);

function check(condition: boolean, what: string): void {
  if (!condition) {
    throw new Error(`check failed: ${what}`);
  }
  console.log(`  ok: ${what}`);
}

/** Requests through the balancer, one after another, while a fault lasts: non-2xx counted. */
function traffic(url: string): {
  stop(): Promise<{ sent: number; failed: string[]; slowest: number }>;
} {
  let stopping = false;
  const failed: string[] = [];
  let sent = 0;
  let slowest = 0;
  const loop = (async () => {
    while (!stopping) {
      sent += 1;
      const t = performance.now();
      try {
        const response = await fetch(`${url}/health/readiness`, {
          signal: AbortSignal.timeout(15_000),
        });
        slowest = Math.max(slowest, performance.now() - t);
        if (!response.ok) {
          failed.push(String(response.status));
        }
      } catch (error) {
        failed.push(error instanceof Error ? error.message : String(error));
      }
      await sleep(20);
    }
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
      return { sent, failed, slowest };
    },
  };
}

/** Polls the balancer until host `name` has `status`; answers the seconds it took. */
async function untilStatus(fleet: Fleet, name: string, status: string, since: number) {
  const seen: string[] = [];
  for (;;) {
    const now = (await fleet.balancerStatus()).get(name) ?? '?';
    if (seen.at(-1) !== now) {
      seen.push(now);
    }
    if (now === status) {
      console.log(`  ${name} ${status} after ${seconds(since)} s (seen: ${seen.join(' → ')})`);
      return;
    }
    if (performance.now() - since > 30_000) {
      throw new Error(`${name} not ${status} within 30 s (seen: ${seen.join(' → ')})`);
    }
    await sleep(50);
  }
}

async function scalar(url: string, sql: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const [row] = (await client.query(sql)).rows as object[];
    return row ? Object.values(row)[0] : undefined;
  } finally {
    await client.end();
  }
}

async function api(fleet: Fleet): Promise<void> {
  const base = `${fleet.balancerUrl}/api/v1`;
  check(
    (await fetch(`${fleet.balancerUrl}/health/readiness`)).status === 204,
    'readiness through the balancer: 204',
  );
  check((await fetch(`${base}/openapi.json`)).status === 200, 'GET /api/v1/openapi.json: 200');
  const account = `smoke.${Date.now()}`;
  const password = 'Sunrise-Meeting-42';
  const registered = await fetch(`${base}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Smoke Person',
      account,
      email: `${account}@example.com`,
      password,
      password_confirm: password,
    }),
  });
  check(registered.status === 201, `POST /api/v1/auth/register: ${registered.status}`);
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    body: new URLSearchParams({ email: `${account}@example.com`, password }),
  });
  const { access_token: token } = (await login.json()) as { access_token: string };
  check(login.status === 200 && Boolean(token), `POST /api/v1/auth/login: ${login.status}`);
  for (let i = 0; i < fleet.hosts.length; i += 1) {
    const me = await fetch(`${base}/user/me`, { headers: { authorization: `Bearer ${token}` } });
    check(me.status === 200, `GET /api/v1/user/me through the balancer (${i + 1}): ${me.status}`);
  }
  for (const host of fleet.hosts) {
    const direct = await fetch(`${host.url}/health/readiness`);
    check(direct.status === 204, `${host.name} (${host.url}) answers directly: ${direct.status}`);
  }
}

/** A server on the gateway address, called from inside host 1's namespace. */
async function gatewayReachable(fleet: Fleet): Promise<void> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    res.end('hi');
  });
  await new Promise<void>((resolve) => server.listen(0, fleet.gatewayAddress, resolve));
  const { port } = server.address() as { port: number };
  const url = `http://${fleet.gatewayAddress}:${port}/`;
  // Not execFileSync: the server above answers on this process's event loop.
  const out = await run([
    'ip',
    'netns',
    'exec',
    'mtgfleet-h1',
    process.execPath,
    '-e',
    `fetch(${JSON.stringify(url)}).then(r => r.text()).then(t => console.log(t))`,
  ]);
  await new Promise((resolve) => server.close(resolve));
  check(out.trim() === 'hi' && hits === 1, `a host reaches a server on ${fleet.gatewayAddress}`);
}

async function faults(fleet: Fleet): Promise<void> {
  let t = performance.now();
  let load = traffic(fleet.balancerUrl);
  const pid = fleet.pidOf(0);
  fleet.killHost(0);
  check(fleet.pidOf(0) === null && pid !== null, `killHost(0) (pid ${pid}): pidOf null`);
  await untilStatus(fleet, 'h1', 'DOWN', t);
  let seen = await load.stop();
  console.log(
    `  through the balancer meanwhile: ${seen.sent} sent, slowest ${(seen.slowest / 1000).toFixed(2)} s, failed: ${seen.failed.length} ${seen.failed.slice(0, 3).join('; ')}`,
  );

  t = performance.now();
  await fleet.startHost(0);
  console.log(`  startHost(0) ready in ${seconds(t)} s (pid ${fleet.pidOf(0)})`);
  await untilStatus(fleet, 'h1', 'UP', t);

  t = performance.now();
  load = traffic(fleet.balancerUrl);
  fleet.cutHost(1);
  await untilStatus(fleet, 'h2', 'DOWN', t);
  seen = await load.stop();
  console.log(
    `  through the balancer meanwhile: ${seen.sent} sent, slowest ${(seen.slowest / 1000).toFixed(2)} s, failed: ${seen.failed.length} ${seen.failed.slice(0, 3).join('; ')}`,
  );
  t = performance.now();
  fleet.restoreHost(1);
  await untilStatus(fleet, 'h2', 'UP', t);

  t = performance.now();
  load = traffic(fleet.balancerUrl);
  await fleet.restartPrimary();
  console.log(`  restartPrimary() in ${seconds(t)} s`);
  await sleep(3_000);
  seen = await load.stop();
  console.log(
    `  balancer: ${JSON.stringify([...(await fleet.balancerStatus())])}; requests ${seen.sent} sent, failed: ${seen.failed.length} ${seen.failed.slice(0, 3).join('; ')}`,
  );
  check(
    (await scalar(fleet.primaryUrl, 'select 1')) === 1,
    'the primary answers after the restart',
  );

  t = performance.now();
  fleet.stopReplica();
  console.log(`  stopReplica() returned in ${seconds(t)} s`);
  await sleep(500);
  check(
    await scalar(fleet.replicaUrl, 'select 1').then(
      () => false,
      () => true,
    ),
    'the replica refuses connections once stopped',
  );
  t = performance.now();
  await fleet.startReplica();
  console.log(`  startReplica() in ${seconds(t)} s`);
  check(
    (await scalar(fleet.replicaUrl, 'select pg_is_in_recovery()')) === true,
    'the replica is a standby again',
  );

  t = performance.now();
  await fleet.setReplicaDelay(2000);
  console.log(`  setReplicaDelay(2000) in ${seconds(t)} s`);
  check(
    (await scalar(fleet.replicaUrl, 'show recovery_min_apply_delay')) === '2s',
    'replica delay 2s',
  );
  await scalar(fleet.primaryUrl, 'create table smoke_delay (id int)');
  t = performance.now();
  for (;;) {
    const there = await scalar(fleet.replicaUrl, "select to_regclass('smoke_delay') is not null");
    if (there === true) {
      break;
    }
    await sleep(50);
  }
  console.log(
    `  a table made on the primary appears on the replica after ${seconds(t)} s (2 s delay)`,
  );
  await fleet.setReplicaDelay(0);
  check(
    (await scalar(fleet.replicaUrl, 'show recovery_min_apply_delay')) === '0',
    'replica delay cleared',
  );
  console.log(`  balancer at the end: ${JSON.stringify([...(await fleet.balancerStatus())])}`);
}

function leftovers(): string[] {
  const sh = (command: string) => {
    try {
      return execFileSync('sh', ['-c', command]).toString().trim();
    } catch {
      return '';
    }
  };
  return [
    sh('ip netns list | grep mtgfleet'),
    sh('ip -o link show | grep mtgfleet'),
    sh('pgrep -a postgres | grep mtgfleet'),
    sh('pgrep -a haproxy'),
    existsSync(STATE_DIR) ? `${STATE_DIR} exists` : '',
  ].filter(Boolean);
}

async function main(): Promise<void> {
  const problem = fleetUnavailable();
  if (problem) {
    console.log(`fleet unavailable: ${problem}`);
    return;
  }
  const logDir = mkdtempSync(join(tmpdir(), 'mtgfleet-smoke-logs-'));
  console.log(`logs: ${logDir}`);
  if (args.includes('--fail-start')) {
    const t = performance.now();
    const failed = await startFleet({
      hosts: HOSTS,
      serviceEnv: { ...SERVICE_ENV, JWT_SECRET: 'short' },
      logDir,
    }).then(
      () => null,
      (error: unknown) => error,
    );
    console.log(`startFleet rejected after ${seconds(t)} s: ${String(failed).slice(0, 300)}`);
    check(failed !== null, 'a start that fails halfway rejects');
    check(leftovers().length === 0, `nothing left: ${leftovers().join(' | ')}`);
    return;
  }
  let t = performance.now();
  const fleet = await startFleet({ hosts: HOSTS, serviceEnv: SERVICE_ENV, logDir });
  console.log(`startFleet(${HOSTS} hosts) in ${seconds(t)} s: ${fleet.balancerUrl}`);
  console.log(`  primary ${fleet.primaryUrl}, replica ${fleet.replicaUrl}`);
  try {
    await api(fleet);
    await gatewayReachable(fleet);
    await faults(fleet);
  } finally {
    const pids = fleet.hosts.map((_, i) => fleet.pidOf(i)).filter((pid) => pid !== null);
    t = performance.now();
    await fleet.close();
    check(
      pids.every((pid) => !existsSync(`/proc/${pid}`)),
      `the hosts' services (${pids.join(', ')}) are gone`,
    );
    console.log(`close() in ${seconds(t)} s`);
    await fleet.close();
  }
  const left = leftovers();
  check(left.length === 0, `nothing left: ${left.join(' | ')}`);
  console.log(`done; the process should end now (no handles left)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
