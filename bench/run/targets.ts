import { join } from 'node:path';
import { COST_LIMITS } from '../../src/platform/graphql/cost.settings';
import { deriveKeys, type TokenSettings } from '../lib/jwt';
import { PEER_DIR, type PeerInfo } from '../lib/peers';
import { ROOT, serviceNodeFlags } from '../lib/paths';
import { type Server, startServer } from '../lib/processes';

// The two targets of every scenario, the service and the bare baseline, and the peers of
// --peers, as child processes.

const SECRET = 'bench-only-signing-secret-0123456789abcdef';
export const TOKENS: TokenSettings = { issuer: 'http://127.0.0.1/bench', audience: 'meeting-api' };
/** The password of the seeded users. */
export const PASSWORD = 'password123';
/** The service's signing key, derived from JWT_SECRET as the service does. */
export const KEYS = deriveKeys(SECRET);

/** How the service signs and checks tokens: the harness signs with KEYS and TOKENS. */
export const AUTH_ENV: Readonly<Record<string, string>> = {
  JWT_SECRET: SECRET,
  JWT_ISSUER: TOKENS.issuer,
  JWT_AUDIENCE: TOKENS.audience,
};

/** What every process the harness starts keeps of its environment: the path and the locale. */
export function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ']) {
    const value = process.env[name];
    if (value !== undefined) {
      env[name] = value;
    }
  }
  return env;
}

/** What both targets are given: the locale and path, production mode, the key, the database. */
function commonEnv(dbUrl: string): Record<string, string> {
  return {
    ...inheritedEnv(),
    NODE_ENV: 'production',
    ...AUTH_ENV,
    DATABASE_URL: dbUrl,
    // The bench's scenarios read as one caller as fast as they can (a GraphQL meeting read,
    // 101 a time, runs ~1,000 a second): a budget as large as allowed, still paid on every
    // operation, lets them. The baseline and the peers read no such variable.
    COST_BUDGET_PER_MINUTE: String(COST_LIMITS.budgetPerMinute.max),
  };
}

/** --service-env: extra environment of every service process started. */
let serviceEnvOverrides: Record<string, string> = {};

export function setServiceEnv(env: Record<string, string>): void {
  serviceEnvOverrides = env;
}

/**
 * `node <production flags> [nodeArgs] dist/src/main.js` (or `script`) of the working tree (or of
 * `root`), ready once /health/readiness answers.
 */
export function startService(
  dbUrl: string,
  logLevel: 'info' | 'warn',
  options: {
    script?: string;
    nodeArgs?: string[];
    env?: Record<string, string>;
    /** Another build's repository or worktree (--against), with its own flags and dist/. */
    root?: string;
    /** Another Node.js binary (--against-node). */
    execPath?: string;
    name?: string;
  } = {},
): Promise<Server> {
  const root = options.root ?? ROOT;
  return startServer({
    name: options.name ?? 'service',
    script: join(root, options.script ?? 'dist/src/main.js'),
    ...(options.execPath && { execPath: options.execPath }),
    nodeArgs: [...serviceNodeFlags(root), ...(options.nodeArgs ?? [])],
    cwd: root,
    env: { ...commonEnv(dbUrl), LOG_LEVEL: logLevel, ...serviceEnvOverrides, ...options.env },
    readyPath: '/health/readiness',
  });
}

/** `node dist/bench/baseline/server.js` with a pool of 10, as the service's default. */
export function startBaseline(dbUrl: string): Promise<Server> {
  return startServer({
    name: 'baseline',
    script: join(ROOT, 'dist/bench/baseline/server.js'),
    cwd: ROOT,
    env: { ...commonEnv(dbUrl), DB_POOL_SIZE: '10' },
    readyPath: '/health/readiness',
  });
}

/**
 * A PostGraphile peer (`bench/peers/postgraphile/dist/server.js`, built by the peers pass) with
 * a pool of 10, verifying tokens against the service's public key when `peer.auth` is `token`.
 */
export function startPeer(dbUrl: string, peer: PeerInfo): Promise<Server> {
  return startServer({
    name: peer.key,
    script: join(PEER_DIR, 'dist/server.js'),
    cwd: PEER_DIR,
    env: {
      ...commonEnv(dbUrl),
      GRAPHILE_ENV: 'production',
      DB_POOL_SIZE: '10',
      AUTH: peer.auth,
      JWT_PUBLIC_KEY_X: KEYS.x,
    },
    readyPath: '/health/readiness',
  });
}
