import { spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../lib/paths';
import { inheritedEnv } from '../run/targets';
import { logTail, openLog } from './logs';

// What every service process of the fleet is given, and the one run of the migrations before
// any host starts (the hosts start with MIGRATE_ON_START=false, as the compose fleet's do).

/** The port every host's service listens on (each namespace has its own). */
export const SERVICE_PORT = 3000;

export interface ServiceWiring {
  primaryUrl: string;
  replicaUrl: string;
  /** The balancer's source address on the bridge (TRUST_PROXY). */
  gatewayAddress: string;
  balancerUrl: string;
}

/**
 * The environment of a host's service: the harness's PATH, HOME, LANG and TZ; defaults the
 * caller's `serviceEnv` may override (NODE_ENV, TRUST_PROXY, PUBLIC_URL, LOG_LEVEL,
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS, MIGRATE_ON_START); then the fleet's wiring, which always wins
 * (DATABASE_URL, DATABASE_READ_URLS, HOST, PORT).
 */
export function serviceEnvironment(
  serviceEnv: Record<string, string>,
  wiring: ServiceWiring,
): Record<string, string> {
  return {
    ...inheritedEnv(),
    NODE_ENV: 'production',
    TRUST_PROXY: wiring.gatewayAddress,
    PUBLIC_URL: wiring.balancerUrl,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
    MIGRATE_ON_START: 'false',
    ...serviceEnv,
    DATABASE_URL: wiring.primaryUrl,
    DATABASE_READ_URLS: wiring.replicaUrl,
    HOST: '0.0.0.0',
    PORT: String(SERVICE_PORT),
  };
}

/** `node dist/src/db/migrate.js` on the primary, its output appended to <logDir>/migrate.log. */
export async function runMigrations(env: Record<string, string>, logDir: string): Promise<void> {
  const log = openLog(logDir, 'migrate');
  try {
    const child = spawn(process.execPath, [join(ROOT, 'dist/src/db/migrate.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', log, log],
    });
    const code = await new Promise<number | string | null>((resolve) => {
      child.once('exit', (exitCode, exitSignal) => resolve(exitCode ?? exitSignal));
      child.once('error', (error) => resolve(error.message));
    });
    if (code !== 0) {
      throw new Error(`the migrations failed (${code}):\n${logTail(logDir, 'migrate')}`);
    }
  } finally {
    closeSync(log);
  }
}
