import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How the embedded server fares: `up`; `restarting` after it died without being asked to (kill,
 * crash, someone else's shutdown); `failed` once every restart attempt failed (nothing runs).
 */
export type EmbeddedHealth = 'up' | 'restarting' | 'failed';

/** One change of health, with what an operator needs to read it in a log line. */
export type HealthChange =
  | { health: 'restarting'; exit: { code: number | null; signal: NodeJS.Signals | null } }
  | { health: 'up'; attempts: number; downMs: number }
  | { health: 'failed'; attempts: number; downMs: number; reason: string };

/** A started server: the watchdog shell we spawned, and how to stop it. */
export interface ServerRun {
  child: ChildProcess;
  /** Stops the server; `release` also gives the data directory's lock up. */
  stop(release?: boolean): Promise<void>;
}

export interface SupervisionOptions {
  /** Restart attempts after the server died, before giving up (0: give up at once). */
  attempts: number;
  /** Wait before the first attempt, doubled before each next one up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/** Default restart attempts: with the default backoff, about 6 s of trying. */
export const DEFAULT_RESTART_ATTEMPTS = 5;
const FIRST_DELAY_MS = 200;
const MAX_DELAY_MS = 5_000;

/**
 * Keeps the embedded server running: when the server we started exits and we did not ask it to,
 * starts it again (`relaunch`: same data directory and port, so pooled connections reconnect and
 * PostgreSQL recovers from its WAL), with a doubling wait between attempts. The data directory's
 * lock stays ours throughout, so no other process takes the directory meanwhile; it is released
 * when we stop, or when we give up (no server runs then, and the process is about to exit).
 */
export class ServerSupervisor {
  private run: ServerRun | null = null;
  private state: EmbeddedHealth = 'up';
  private recovery: Promise<void> = Promise.resolve();
  private stopped: Promise<void> | null = null;
  private readonly listeners = new Set<(change: HealthChange) => void>();
  private readonly abort = new AbortController();

  constructor(
    first: ServerRun,
    private readonly relaunch: () => Promise<ServerRun>,
    private readonly release: () => void,
    private readonly options: SupervisionOptions,
  ) {
    this.watch(first);
  }

  get health(): EmbeddedHealth {
    return this.state;
  }

  /** Calls `listener` on each change of health from now on; returns how to stop calling it. */
  onChange(listener: (change: HealthChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the server (and any restart under way) and releases the lock; once, however called. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.abort.abort();
      await this.recovery;
      await this.run?.stop(false);
      this.run = null;
      this.release();
    })();
    return this.stopped;
  }

  private watch(run: ServerRun): void {
    this.run = run;
    const exited = (code: number | null, signal: NodeJS.Signals | null) => {
      if (this.stopped !== null || this.run !== run) {
        return; // our own stop, or a run already replaced
      }
      this.run = null;
      this.recovery = this.recover({ code, signal });
    };
    if (run.child.exitCode !== null || run.child.signalCode !== null) {
      // It died before we watched it (between accepting connections and being handed over).
      queueMicrotask(() => exited(run.child.exitCode, run.child.signalCode));
    } else {
      run.child.once('exit', exited);
    }
  }

  private async recover(exit: { code: number | null; signal: NodeJS.Signals | null }) {
    const downAt = performance.now();
    const downMs = () => Math.round(performance.now() - downAt);
    this.change({ health: 'restarting', exit });
    const { attempts } = this.options;
    let delay = this.options.firstDelayMs ?? FIRST_DELAY_MS;
    let reason = 'no restart attempts allowed (EMBEDDED_RESTART_ATTEMPTS=0)';
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      try {
        await sleep(delay, undefined, { signal: this.abort.signal });
      } catch {
        return; // stopping
      }
      delay = Math.min(delay * 2, this.options.maxDelayMs ?? MAX_DELAY_MS);
      let run: ServerRun;
      try {
        run = await this.relaunch();
      } catch (error) {
        // The reason of the last attempt goes into the one line that reports giving up.
        reason = error instanceof Error ? error.message : String(error);
        continue;
      }
      if (this.stopped !== null) {
        await run.stop(false);
        return;
      }
      this.change({ health: 'up', attempts: attempt, downMs: downMs() });
      this.watch(run);
      return;
    }
    if (this.stopped === null) {
      this.release();
      this.change({ health: 'failed', attempts, downMs: downMs(), reason });
    }
  }

  private change(change: HealthChange): void {
    this.state = change.health;
    for (const listener of this.listeners) {
      listener(change);
    }
  }
}
