import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { commandName, isAlive, signal, waitGoneSync } from './commands';
import { logTail, openLog } from './logs';

// One PostgreSQL server (postmaster) of the fleet: started as the `postgres` user straight from
// Node (so that the pid held is the postmaster's and its output goes to a log file opened here),
// stopped as a crash would (immediate: SIGQUIT) or cleanly (fast: SIGINT).

const START_WITHIN_MS = 60_000;
const STOP_WITHIN_MS = 30_000;

export interface PostgresServerOptions {
  /** `primary` or `replica`: its log is <logDir>/postgres-<name>.log. */
  name: string;
  bin: string;
  dataDir: string;
  port: number;
  logDir: string;
  user: { uid: number; gid: number };
}

/** The postmaster's pid from a data directory's postmaster.pid, if it runs. */
function runningPostmaster(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
    return pid > 0 && isAlive(pid) && commandName(pid) === 'postgres' ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Stops whatever postmaster runs on a data directory (this run's or an earlier one's) at once:
 * SIGQUIT (immediate shutdown), SIGKILL when it is still there after a while. Synchronous.
 */
export function stopDataDir(dataDir: string, pid = runningPostmaster(dataDir)): void {
  if (pid === null || !isAlive(pid)) {
    return;
  }
  signal(pid, 'SIGQUIT');
  if (waitGoneSync([pid], 10_000).length > 0) {
    signal(pid, 'SIGKILL');
    waitGoneSync([pid], 2_000);
  }
}

/** Whether a server accepts connections (a standby: once it is consistent). */
export async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {
    // The server went away meanwhile: the query or connect below fails.
  });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export class PostgresServer {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly options: PostgresServerOptions) {}

  /** The `postgres` database over 127.0.0.1 (administration). */
  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.options.port}/postgres`;
  }

  get logName(): string {
    return `postgres-${this.options.name}`;
  }

  /** Starts the postmaster; resolves once it accepts connections. */
  async start(): Promise<void> {
    if (this.child) {
      throw new Error(`the ${this.options.name} is running already`);
    }
    const { bin, dataDir, user, logDir } = this.options;
    const log = openLog(logDir, this.logName);
    let child: ChildProcess;
    try {
      child = spawn(join(bin, 'postgres'), ['-D', dataDir], {
        cwd: dataDir,
        uid: user.uid,
        gid: user.gid,
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
        stdio: ['ignore', log, log],
        // Its own session: a Ctrl-C of the harness's terminal is the harness's to handle.
        detached: true,
      });
    } finally {
      closeSync(log);
    }
    this.child = child;
    this.exited = new Promise((resolve) => {
      const gone = () => {
        if (this.child === child) {
          this.child = null;
        }
        resolve();
      };
      child.once('exit', gone);
      child.once('error', gone);
    });
    const deadline = performance.now() + START_WITHIN_MS;
    while (!(await accepts(this.adminUrl))) {
      if (this.child !== child || performance.now() > deadline) {
        this.stop();
        throw new Error(
          `PostgreSQL ${this.options.name} did not start:\n${logTail(logDir, this.logName)}`,
        );
      }
      await sleep(100);
    }
  }

  /** Whether the postmaster runs. */
  get running(): boolean {
    return this.child !== null;
  }

  /** Immediate shutdown, as a crash: returns at once (see `stopped`). */
  crash(): void {
    if (this.child?.pid) {
      signal(this.child.pid, 'SIGQUIT');
    }
  }

  /** Resolves when the postmaster is gone. */
  stopped(): Promise<void> {
    return this.exited;
  }

  /** Fast shutdown (clients disconnected, a checkpoint); resolves when it is gone. */
  async stopFast(): Promise<void> {
    const pid = this.child?.pid;
    if (!pid) {
      return;
    }
    signal(pid, 'SIGINT');
    const timer = setTimeout(() => signal(pid, 'SIGKILL'), STOP_WITHIN_MS);
    await this.exited;
    clearTimeout(timer);
  }

  /** Stops it at once (immediate), synchronously, whatever stage it is at; idempotent. */
  stop(): void {
    stopDataDir(this.options.dataDir, this.child?.pid ?? runningPostmaster(this.options.dataDir));
  }
}
