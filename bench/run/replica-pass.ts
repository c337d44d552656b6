import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { databaseName, withClient } from '../lib/db';
import type { BenchOptions } from '../lib/options';
import type { Server } from '../lib/processes';
import { type ReplicaReport, replicaShare } from '../lib/report-replica';
import { isReplicaScenario, type ScenarioKey, scenarioInfo } from '../lib/scenarios';
import { prepareContext } from './prepare';
import { log } from './progress';
import { countByServer, type ServerStatements } from './replica-statements';
import { startBaseline, startService } from './targets';
import { measurePair } from './timed-runs';
import {
  postgresTools,
  startStreamingPair,
  type StreamingPair,
} from '../../test/helpers/streaming-replica';

// --replica: the read scenarios on a primary and one streaming replica of their own, the service
// reading from the replica (DATABASE_READ_URLS), the baseline from the primary; req/s of both and
// how many of the service's reads the replica answered (db_reads_total).

/** How long the replica may take to replay the copy before the pass gives up. */
const CATCH_UP_MS = 300_000;
/** How long the service may take to see the replica healthy (it looks twice a second). */
const HEALTHY_MS = 15_000;

/** The pair of the pass running now, stopped by {@link stopReplicaPair} on an interrupt. */
let running: StreamingPair | null = null;

/** Stops the pass's PostgreSQL pair (and removes its files), if one is running. */
export function stopReplicaPair(): void {
  const pair = running;
  running = null;
  pair?.close();
}

/** `host:port` of a database URL. */
const hostOf = (url: string): string => new URL(url).host;

/** Runs a program to its end; its stderr (the last of it) in the error when it fails. */
function finished(child: ReturnType<typeof spawn>, name: string): Promise<void> {
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-2000);
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) {
        resolve();
      } else {
        reject(new Error(`${name} failed (${signal ?? `exit code ${code}`}): ${errors.trim()}`));
      }
    });
  });
}

/**
 * `pg_dump <from> | psql <to>` with the pair's own tools (the same major version as the servers),
 * then VACUUM ANALYZE (a dump carries no planner statistics). Measured on this machine (a server
 * without a replica), a copy of the 100,000-user database took 18 s against 76 s for seeding it
 * again (10,000 users: 2 s against 9 s).
 */
async function copyDatabase(bin: string, from: string, to: string): Promise<void> {
  const dump = spawn(join(bin, 'pg_dump'), ['--no-owner', '--no-privileges', '--dbname', from], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const load = spawn(
    join(bin, 'psql'),
    ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-o', '/dev/null', '--dbname', to],
    { stdio: ['pipe', 'ignore', 'pipe'] },
  );
  // psql failing first ends the pipe: its own error says why.
  load.stdin?.on('error', () => undefined);
  dump.stdout?.pipe(load.stdin as NodeJS.WritableStream);
  await Promise.all([finished(dump, 'pg_dump'), finished(load, 'psql')]);
  await withClient(to, (client) => client.query('vacuum analyze'));
}

/** Waits until the replica has replayed everything the primary has written so far. */
async function caughtUp(pair: StreamingPair): Promise<void> {
  const written = await withClient(pair.primaryUrl, async (client) => {
    const { rows } = await client.query<{ lsn: string }>(
      'select pg_current_wal_lsn()::text as lsn',
    );
    return rows[0]?.lsn as string;
  });
  await withClient(pair.replicaUrl, async (client) => {
    const deadline = Date.now() + CATCH_UP_MS;
    for (;;) {
      const { rows } = await client.query<{ done: boolean }>(
        'select coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) as done',
        [written],
      );
      if (rows[0]?.done) {
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`the replica did not replay the copy within ${CATCH_UP_MS / 1000} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
}

/** Where the service's metrics are: METRICS_PORT and METRICS_PATH of --service-env, if given. */
function metricsUrl(service: Server, env: Readonly<Record<string, string>>): string {
  const path = env['METRICS_PATH'] ?? '/metrics';
  const port = env['METRICS_PORT'];
  return port ? `http://127.0.0.1:${port}${path}` : `${service.url}${path}`;
}

/** The service's metrics: `db_reads_total` by target and the replica's `db_replica_lag_seconds`. */
async function readMetrics(
  url: string,
): Promise<{ reads: { primary: number; replica: number }; lagSeconds: number | null }> {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`GET ${url} answered ${response.status}`);
  }
  const text = await response.text();
  const value = (pattern: RegExp): number | null => {
    const match = pattern.exec(text);
    return match ? Number(match[1]) : null;
  };
  const lag = value(/^db_replica_lag_seconds\{[^}]*\} (\S+)$/m);
  return {
    reads: {
      primary: value(/^db_reads_total\{target="primary"\} (\S+)$/m) ?? 0,
      replica: value(/^db_reads_total\{target="replica"\} (\S+)$/m) ?? 0,
    },
    lagSeconds: lag === null || lag < 0 ? null : lag,
  };
}

/** Waits until the service reports the replica with a known lag (reachable, a standby). */
async function untilReplicaSeen(url: string): Promise<void> {
  const deadline = Date.now() + HEALTHY_MS;
  while ((await readMetrics(url)).lagSeconds === null) {
    if (Date.now() > deadline) {
      throw new Error(
        `the service did not see its replica within ${HEALTHY_MS / 1000} s (db_replica_lag_seconds)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The pass: a primary and a replica (test/helpers/streaming-replica.ts, apply delay 0), the run's
 * database copied into the primary, the service on both and the baseline on the primary; each
 * read scenario among `scenarios`, checked equal, then timed as the main pass times it.
 */
export async function replicaPass(
  options: BenchOptions,
  dbUrl: string,
  scenarios: readonly ScenarioKey[],
): Promise<ReplicaReport> {
  const started = Date.now();
  const keys = scenarios.filter(isReplicaScenario);
  const tools = postgresTools();
  if ('missing' in tools) {
    throw new Error(`--replica: ${tools.missing}`);
  }
  log('Reads with one replica: starting a PostgreSQL primary and streaming replica…');
  const pair = await startStreamingPair(0);
  running = pair;
  let service: Server | null = null;
  let baseline: Server | null = null;
  try {
    const from = databaseName(dbUrl);
    log(`  copying ${from} into the primary (pg_dump | psql, VACUUM ANALYZE)…`);
    const copyStarted = Date.now();
    await copyDatabase(tools.bin, dbUrl, pair.primaryUrl);
    const copied = Date.now();
    await caughtUp(pair);
    const copy = {
      from,
      sizeBytes: await withClient(pair.primaryUrl, async (client) => {
        const { rows } = await client.query<{ size: string }>(
          'select pg_database_size(current_database())::text as size',
        );
        return Number(rows[0]?.size);
      }),
      seconds: (copied - copyStarted) / 1000,
      catchUpSeconds: (Date.now() - copied) / 1000,
    };
    log(
      `  copied in ${copy.seconds.toFixed(1)} s; the replica caught up ${copy.catchUpSeconds.toFixed(1)} s later.`,
    );
    const version = await withClient(pair.replicaUrl, async (client) => {
      const { rows } = await client.query<{ v: string }>(
        "select current_setting('server_version') as v",
      );
      return rows[0]?.v ?? 'unknown';
    });
    baseline = await startBaseline(pair.primaryUrl);
    const metricsOf = (target: Server): string => metricsUrl(target, options.serviceEnv);
    log('  counting start: statements per request on each server, behind counting proxies…');
    const counted = await countByServer(
      { primary: pair.primaryUrl, replica: pair.replicaUrl },
      baseline,
      keys,
      async (target) => (await readMetrics(metricsOf(target))).reads,
      (target) => untilReplicaSeen(metricsOf(target)),
    );
    log(`  answers byte-for-byte equal for ${keys.join(', ')}.`);
    // As the main pass: --quick times the service logging every request.
    const logLevel = options.quick ? 'info' : 'warn';
    service = await startService(pair.primaryUrl, logLevel, {
      name: 'service (replica)',
      env: { DATABASE_READ_URLS: pair.replicaUrl },
    });
    const metrics = metricsOf(service);
    await untilReplicaSeen(metrics);
    const ctx = await prepareContext(pair.primaryUrl, service);
    const rows: ReplicaReport['rows'] = [];
    for (const key of keys) {
      const title = scenarioInfo(key).title;
      const before = (await readMetrics(metrics)).reads;
      const pairRuns = await measurePair(
        ctx,
        key,
        { service, baseline },
        options,
        `${title}, one replica`,
      );
      const after = (await readMetrics(metrics)).reads;
      const reads = {
        primary: after.primary - before.primary,
        replica: after.replica - before.replica,
      };
      log(`  ${title}: reads on the replica ${replicaShare(reads)}.`);
      rows.push({
        key,
        title,
        ...pairRuns,
        reads,
        statements: counted.get(key) as ServerStatements,
      });
    }
    return {
      pair: { version, primary: hostOf(pair.primaryUrl), replica: hostOf(pair.replicaUrl) },
      copy,
      seconds: (Date.now() - started) / 1000,
      logLevel,
      rows,
    };
  } finally {
    await service?.stop();
    await baseline?.stop();
    stopReplicaPair();
  }
}
