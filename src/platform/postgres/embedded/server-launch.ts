import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import type { PostgresBinaries } from './binaries';
import type { DataDirectoryLock } from './data-dir-lock';
import { logTail, spawnServer } from './postgres-process';
import type { ServerRun } from './supervisor';

/*
 * Starting one PostgreSQL server process and stopping it: the first start of a service and each
 * restart by its supervisor (supervisor.ts) go through `launch`.
 */

/** How long a server may take to accept connections (crash recovery included). */
export const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

async function canConnect(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Waits until the server accepts connections, or `gone()` says it never will. */
export async function waitUntilAccepting(url: string, gone: () => string | null): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await canConnect(url))) {
    const reason = gone();
    if (reason !== null) {
      throw new Error(reason);
    }
    if (Date.now() > deadline) {
      throw new Error(`the embedded database did not start within ${START_TIMEOUT_MS} ms`);
    }
    await sleep(100);
  }
}

/** Stops the server (once, however often called); `release` also gives the lock up. */
function stopper(
  child: ChildProcess,
  lock: DataDirectoryLock,
): (release?: boolean) => Promise<void> {
  let stopped: Promise<void> | null = null;
  return (release = true) => {
    stopped ??= new Promise<void>((done) => {
      const timer = setTimeout(() => {
        // A server that ignores the fast shutdown: end the whole group (shell and server).
        process.kill(-(child.pid as number), 'SIGKILL');
      }, STOP_TIMEOUT_MS);
      child.once('exit', () => {
        clearTimeout(timer);
        if (release) {
          lock.release();
        }
        done();
      });
      if (child.exitCode !== null || child.signalCode !== null) {
        child.emit('exit', child.exitCode, child.signalCode);
      }
      child.stdin?.end();
    });
    return stopped;
  };
}

/** The server exited while starting; `log` is the end of its log, which says why. */
export class StartFailure extends Error {
  constructor(readonly log: string) {
    super(`the embedded database failed to start:\n${log}`);
  }
}

/** Starts the server on `port` and waits until it accepts connections (stopped again if not). */
export async function launch(
  binaries: PostgresBinaries,
  files: { pgdata: string; log: string },
  port: number,
  /** A URL of the server on `port` to try connections with. */
  url: string,
  lock: DataDirectoryLock,
  settings: Readonly<Record<string, string>> = {},
): Promise<ServerRun> {
  const child = spawnServer(binaries, files.pgdata, port, files.log, settings);
  const stop = stopper(child, lock);
  let failure: string | null = null;
  try {
    await waitUntilAccepting(url, () =>
      child.exitCode === null && child.signalCode === null ? null : (failure = logTail(files.log)),
    );
    return { child, stop };
  } catch (error) {
    await stop(false);
    throw failure === null ? error : new StartFailure(failure);
  }
}
