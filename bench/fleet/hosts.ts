import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, closeSync, readlinkSync, realpathSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, serviceNodeFlags } from '../lib/paths';
import { program, signal } from './commands';
import { logPath, logTail, openLog } from './logs';
import { hostNetwork, killNamespace } from './network';
import { SERVICE_PORT } from './service-env';

// The service on each host: `ip netns exec <namespace> node <production flags> dist/src/main.js`
// (ip execs, so the pid held is node's), in a process group of its own, its output appended to
// <logDir>/<host>.log, ready once /health/readiness answers 2xx from the root namespace.

const READY_WITHIN_MS = 60_000;
const READY_EVERY_MS = 200;
const READY_ATTEMPT_MS = 2_000;
const READINESS = '/health/readiness';

export interface FleetHost {
  name: string;
  address: string;
  /** http://<address>:<port> */
  url: string;
}

interface Host extends FleetHost {
  namespace: string;
  child: ChildProcess | null;
}

/** The status of GET `url` (a fresh connection, closed after), or null when there is no answer. */
function statusOf(url: string, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}

function note(logDir: string, host: string, text: string): void {
  try {
    appendFileSync(
      logPath(logDir, host),
      `--- mtgfleet: ${host} ${text} at ${new Date().toISOString()}\n`,
    );
  } catch {
    // the log directory is gone: nothing to note in
  }
}

export class Hosts {
  readonly list: Host[];
  /** Ends of the processes started here not yet reaped. */
  private readonly pending = new Set<Promise<void>>();
  private readonly nodeExecutable = realpathSync(process.execPath);

  constructor(
    count: number,
    private readonly env: Record<string, string>,
    private readonly logDir: string,
  ) {
    this.list = Array.from({ length: count }, (_, i) => {
      const net = hostNetwork(i);
      return {
        name: net.name,
        address: net.address,
        url: `http://${net.address}:${SERVICE_PORT}`,
        namespace: net.namespace,
        child: null,
      };
    });
  }

  private host(i: number): Host {
    const host = this.list[i];
    if (!host) {
      throw new Error(`no host ${i} (the fleet has ${this.list.length}, from 0)`);
    }
    return host;
  }

  /** Starts host i's service; resolves once its readiness answers (60 s, else killed, rejects). */
  async start(i: number): Promise<void> {
    const host = this.host(i);
    if (host.child) {
      throw new Error(`${host.name} runs already (pid ${host.child.pid})`);
    }
    note(this.logDir, host.name, 'starting');
    const log = openLog(this.logDir, host.name);
    let child: ChildProcess;
    try {
      child = spawn(
        program('ip'),
        [
          'netns',
          'exec',
          host.namespace,
          process.execPath,
          ...serviceNodeFlags(ROOT),
          join(ROOT, 'dist/src/main.js'),
        ],
        { cwd: ROOT, env: this.env, stdio: ['ignore', log, log], detached: true },
      );
    } finally {
      closeSync(log);
    }
    host.child = child;
    let exit: string | null = null;
    const gone = (why: string) => {
      exit ??= why;
      if (host.child === child) {
        host.child = null;
      }
    };
    const ended = new Promise<void>((resolve) => {
      child.once('exit', (code, sig) => resolve(gone(`exited (${sig ?? code})`)));
      child.once('error', (error) => resolve(gone(`did not start (${error.message})`)));
    });
    this.pending.add(ended);
    void ended.then(() => this.pending.delete(ended));

    const deadline = performance.now() + READY_WITHIN_MS;
    for (;;) {
      const status = exit ? null : await statusOf(`${host.url}${READINESS}`, READY_ATTEMPT_MS);
      if (exit !== null || host.child !== child) {
        throw new Error(
          `${host.name} ${exit ?? 'was killed'} while starting:\n${logTail(this.logDir, host.name)}`,
        );
      }
      if (status !== null && status >= 200 && status < 300) {
        break;
      }
      if (performance.now() > deadline) {
        this.kill(i);
        throw new Error(
          `${host.name} did not answer ${READINESS} within ${READY_WITHIN_MS} ms:\n` +
            logTail(this.logDir, host.name),
        );
      }
      await sleep(READY_EVERY_MS);
    }
    // `ip netns exec` replaced itself with node: the pid held is the service's own.
    const executable = readlinkSync(`/proc/${child.pid}/exe`);
    if (executable !== this.nodeExecutable) {
      this.kill(i);
      throw new Error(`${host.name}'s pid ${child.pid} runs ${executable}, not node`);
    }
  }

  /** SIGKILLs host i's service, its process group and anything else in its namespace, at once. */
  kill(i: number): void {
    const host = this.host(i);
    const pid = host.child?.pid;
    host.child = null;
    if (pid) {
      signal(-pid, 'SIGKILL');
      signal(pid, 'SIGKILL');
      note(this.logDir, host.name, `killed (SIGKILL of ${pid})`);
    }
    killNamespace(host.namespace);
  }

  pidOf(i: number): number | null {
    return this.host(i).child?.pid ?? null;
  }

  /** Resolves when every process started here has ended (and was reaped). */
  async exited(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  /** Kills every host's service (teardown). */
  killAll(): void {
    this.list.forEach((_, i) => this.kill(i));
  }
}
