import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src/platform/shared/free-port';
import { postgresTools } from '../../test/helpers/streaming-replica';
import { ROOT } from '../lib/paths';
import { Balancer } from './balancer';
import { findProgram } from './commands';
import { type FleetHost, Hosts } from './hosts';
import { createNetwork, GATEWAY_ADDRESS, setHostLink, SUBNET_CIDR } from './network';
import { PostgresPair } from './postgres-pair';
import { runMigrations, SERVICE_PORT, serviceEnvironment } from './service-env';
import { claimFleet, removeFleetLeftovers, statePaths } from './state-dir';
import { noteEvent } from './logs';

// A fleet on one machine for fault tests: N hosts (network namespaces on a bridge), each running
// the built service, behind HAProxy, on a PostgreSQL primary and a streaming replica; and the
// faults: hosts killed or cut off, the primary restarted, the replica stopped or delayed.

export type { FleetHost } from './hosts';

const MAX_HOSTS = 50;
const ALL_UP_WITHIN_MS = 15_000;
const REAP_WITHIN_MS = 5_000;

/** Why the fleet cannot run on this machine (not root, no `ip`, no haproxy, no PostgreSQL tools with pg_basebackup), or null. */
export function fleetUnavailable(): string | null {
  if (process.platform !== 'linux') {
    return `network namespaces need Linux, not ${process.platform}`;
  }
  if (process.getuid?.() !== 0) {
    return 'not root: network namespaces and the postgres user need it';
  }
  for (const [name, what] of [
    ['ip', 'ip (iproute2)'],
    ['haproxy', 'haproxy'],
    ['runuser', 'runuser (util-linux)'],
  ] as const) {
    if (!findProgram(name)) {
      return `no ${what}`;
    }
  }
  const tools = postgresTools();
  if ('missing' in tools) {
    return tools.missing;
  }
  if (!/^postgres:/m.test(readFileSync('/etc/passwd', 'utf8'))) {
    return 'no postgres user to run PostgreSQL as';
  }
  return null;
}

export interface FleetOptions {
  hosts: number;
  /** Extra environment of every service process (JWT settings etc.); the fleet adds DATABASE_URL, DATABASE_READ_URLS, HOST, PORT, TRUST_PROXY, PUBLIC_URL, NODE_ENV=production, WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, LOG_LEVEL (default 'warn'). */
  serviceEnv: Record<string, string>;
  /** Directory for logs of PostgreSQL, HAProxy and each host's service (stdout+stderr). */
  logDir: string;
}

export interface Fleet {
  balancerUrl: string;
  /** postgres:// URL of the service's database on the primary, reachable from the root namespace (and the hosts). */
  primaryUrl: string;
  replicaUrl: string;
  /** The root namespace's address on the bridge: a server the harness listens on there is reachable from every host (webhook receiver). */
  gatewayAddress: string;
  hosts: FleetHost[];
  /** kill -9 of everything of host i (its service process and any child), at once. */
  killHost(i: number): void;
  /** Starts host i's service again; resolves when its /health/readiness answers 2xx (timeout 60 s → reject). */
  startHost(i: number): Promise<void>;
  /** Cuts host i off the network (its link down) and back. */
  cutHost(i: number): void;
  restoreHost(i: number): void;
  /** Restarts the primary (fast shutdown, start); resolves when it accepts connections again. */
  restartPrimary(): Promise<void>;
  /** Immediate stop, as a crash. */
  stopReplica(): void;
  /** Resolves when it accepts connections. */
  startReplica(): Promise<void>;
  /** Sets the replica's recovery_min_apply_delay (ALTER SYSTEM + pg_reload_conf on the replica; 0 to clear). */
  setReplicaDelay(ms: number): Promise<void>;
  /** HAProxy's view of each backend, by host name: 'UP' | 'DOWN' | other status strings (from the stats socket, `show stat`). */
  balancerStatus(): Promise<Map<string, string>>;
  /** The pid of host i's service process, or null when it is not running. */
  pidOf(i: number): number | null;
  /** Stops every process and removes namespaces, bridge, data directories; idempotent; safe after a partial start. */
  close(): Promise<void>;
}

/** Whether this process runs a fleet now (one at a time). */
let running = false;

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const problem = fleetUnavailable();
  if (problem) {
    throw new Error(`the fleet cannot run here: ${problem}`);
  }
  if (!Number.isInteger(options.hosts) || options.hosts < 1 || options.hosts > MAX_HOSTS) {
    throw new Error(`a fleet has 1 to ${MAX_HOSTS} hosts, not ${options.hosts}`);
  }
  if (!existsSync(join(ROOT, 'dist/src/main.js'))) {
    throw new Error('no dist/src/main.js: run `npm run build` first');
  }
  if (running) {
    throw new Error('this process runs a fleet already: close it first');
  }
  running = true;

  const event = (text: string) => noteEvent(options.logDir, text);
  /** Runs a step, noting its start and how long it took (or its failure) in fleet.log. */
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    event(`${name} ...`);
    const took = () => `${((performance.now() - t) / 1000).toFixed(2)} s`;
    try {
      const result = await work();
      event(`${name} done in ${took()}`);
      return result;
    } catch (error) {
      event(`${name} failed after ${took()}: ${error instanceof Error ? error.message : error}`);
      throw error;
    }
  };

  /** What has been started so far (teardown stops what is there). */
  const parts: { pair?: PostgresPair; balancer?: Balancer; hosts?: Hosts } = {};
  let claimed = false;
  let closed = false;
  // Synchronous, so that the process's exit runs it too when the harness ends without close().
  const teardown = (): void => {
    if (closed) {
      return;
    }
    closed = true;
    process.removeListener('exit', teardown);
    const t = performance.now();
    try {
      parts.hosts?.killAll();
      parts.balancer?.stop();
      parts.pair?.stop();
      if (claimed) {
        // The network, the pid files' processes left, the directory.
        removeFleetLeftovers();
      }
    } finally {
      running = false;
      event(`closed in ${((performance.now() - t) / 1000).toFixed(2)} s`);
    }
  };
  process.on('exit', teardown);

  try {
    await step(`startFleet(${options.hosts} hosts)`, async () => {
      claimFleet();
      claimed = true;
      await step('network', () => createNetwork(options.hosts));
      const db = new PostgresPair({
        dir: statePaths.postgres,
        logDir: options.logDir,
        address: GATEWAY_ADDRESS,
        subnet: SUBNET_CIDR,
      });
      parts.pair = db;
      await step('postgres primary and replica', () => db.start());
      const balancerPort = await freePort();
      const env = serviceEnvironment(options.serviceEnv, {
        primaryUrl: db.primaryUrl,
        replicaUrl: db.replicaUrl,
        gatewayAddress: GATEWAY_ADDRESS,
        balancerUrl: `http://127.0.0.1:${balancerPort}`,
      });
      await step('migrations', () => runMigrations(env, options.logDir));
      const set = new Hosts(options.hosts, env, options.logDir);
      parts.hosts = set;
      await step('hosts', () => Promise.all(set.list.map((_, i) => set.start(i))));
      const lb = new Balancer({
        dir: statePaths.balancer,
        logDir: options.logDir,
        port: balancerPort,
        servers: set.list.map((host) => ({
          name: host.name,
          address: host.address,
          port: SERVICE_PORT,
        })),
      });
      parts.balancer = lb;
      await step('balancer', async () => {
        await lb.start();
        await lb.untilAllUp(ALL_UP_WITHIN_MS);
      });
    });
  } catch (error) {
    teardown();
    throw error;
  }

  const { pair: db, balancer: lb, hosts: set } = parts;
  if (!db || !lb || !set) {
    teardown();
    throw new Error('the fleet did not start all its parts');
  }
  const live = <T>(value: T): T => {
    if (closed) {
      throw new Error('the fleet is closed');
    }
    return value;
  };
  /** A host's index, checked. */
  const host = (i: number): number => {
    if (closed) {
      throw new Error('the fleet is closed');
    }
    if (!set.list[i]) {
      throw new Error(`no host ${i} (the fleet has ${set.list.length}, from 0)`);
    }
    return i;
  };
  return {
    balancerUrl: lb.url,
    primaryUrl: db.primaryUrl,
    replicaUrl: db.replicaUrl,
    gatewayAddress: GATEWAY_ADDRESS,
    hosts: set.list.map(({ name, address, url }) => ({ name, address, url })),
    killHost: (i) => {
      event(`killHost(${host(i)}) pid ${set.pidOf(i)}`);
      set.kill(i);
    },
    startHost: (i) => step(`startHost(${host(i)})`, () => set.start(i)),
    cutHost: (i) => {
      event(`cutHost(${host(i)})`);
      setHostLink(i, false);
    },
    restoreHost: (i) => {
      event(`restoreHost(${host(i)})`);
      setHostLink(i, true);
    },
    restartPrimary: () => step('restartPrimary', () => live(db).restartPrimary()),
    stopReplica: () => {
      event('stopReplica');
      live(db).stopReplica();
    },
    startReplica: () => step('startReplica', () => live(db).startReplica()),
    setReplicaDelay: (ms) => step(`setReplicaDelay(${ms})`, () => live(db).setReplicaDelay(ms)),
    balancerStatus: () => live(lb).status(),
    pidOf: (i) => (closed ? null : set.pidOf(i)),
    close: async () => {
      teardown();
      // Every process was killed and waited for above; their ends reaped, no handle is left.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([set.exited(), lb.exited(), db.exited()]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, REAP_WITHIN_MS);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}
