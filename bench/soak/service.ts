import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServiceProcess, startServiceProcess } from '../../test/helpers/service-process';
import { databaseName, databaseUrl, ensureDatabase, withClient } from '../lib/db';
import { ROOT, serviceNodeFlags } from '../lib/paths';
import { options } from './options';

/** The service under soak, on PostgreSQL or on the embedded database, and what it logged. */
export interface SoakService {
  process: ServiceProcess;
  /** Where its data lives, for the report. */
  databaseLabel: string;
  /** Its error logs (level ≥ 50) and any line that is not a log line. */
  errorLines: string[];
  /** Kills it (if running) and removes a temporary data directory. */
  cleanup(): void;
}

/** Creates the database unless it exists; drops it first with --fresh. */
async function prepareDatabase(url: string, fresh: boolean): Promise<void> {
  const name = databaseName(url);
  if (!/^[A-Za-z0-9_]+$/.test(name)) {
    throw new Error(`unexpected database name in ${url}`);
  }
  if (fresh) {
    await withClient(databaseUrl(url, 'postgres'), (client) =>
      client.query(`drop database if exists "${name}" with (force)`),
    );
  }
  if (await ensureDatabase(url)) {
    console.log(`created database ${name}`);
  }
}

/** Starts dist/src/main.js on the database of the options; ready once /health/readiness answers. */
export async function startSoakService(): Promise<SoakService> {
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
  let dataDir: string | null = null;
  let databaseLabel: string;
  if (options.embedded) {
    dataDir = mkdtempSync(join(tmpdir(), 'meetings-soak-'));
    env['DATA_DIR'] = dataDir;
    databaseLabel = `the embedded database (${dataDir})`;
  } else {
    await prepareDatabase(options.databaseUrl, options.fresh);
    env['DATABASE_URL'] = options.databaseUrl;
    const shown = new URL(options.databaseUrl);
    shown.password = shown.password ? '***' : '';
    databaseLabel = `PostgreSQL (${shown.toString()})`;
  }
  console.log(`starting the service on ${databaseLabel}`);
  const errorLines: string[] = [];
  const service = await startServiceProcess({
    script: join(ROOT, 'dist/src/main.js'),
    nodeArgs: serviceNodeFlags(),
    env,
    ready: { path: '/health/readiness', withinMs: 180_000, everyMs: 250, attemptMs: 2_000 },
    onLine: (line) => {
      let level = 0;
      try {
        level = Number((JSON.parse(line) as { level?: number }).level ?? 0);
      } catch {
        level = 50; // not a log line: something printed by hand, most likely a failure
      }
      if (level >= 50) {
        errorLines.push(line.slice(0, 2000));
      }
    },
  });
  return {
    process: service,
    databaseLabel,
    errorLines,
    cleanup() {
      service.signal('SIGKILL');
      if (dataDir) {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
