import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { freePort } from '../../src/platform/shared/free-port';

/**
 * The built service (or another HTTP server) as a child process: started on a free port of
 * 127.0.0.1, awaited until a health path answers, stopped with SIGTERM and then SIGKILL. Shared by
 * the fault tests (test/faults/) and the benchmark and soak harnesses (bench/), so it uses nothing
 * of jest.
 */

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A server started by {@link startServiceProcess}. */
export interface ServiceProcess {
  /** What error messages call it (`service`, `baseline`). */
  name: string;
  child: ChildProcess;
  pid: number;
  /** Base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  /** performance.now() when the process was spawned. */
  spawnedAt: number;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** Sends a signal if the process still runs. */
  signal(signal: NodeJS.Signals): void;
  /** SIGKILLs it (if still running) and waits for the exit. */
  kill(): Promise<Exit>;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; waits for the exit. */
  stop(graceMs?: number): Promise<Exit>;
  /** The last output lines (stdout and stderr), as text, for failure messages. */
  tail(lines?: number): string;
}

export interface ServiceProcessOptions {
  /** Default `service`. */
  name?: string;
  /** The program `node` runs, e.g. dist/src/main.js. */
  script: string;
  /**
   * Instead of `node <script>`, this command (e.g. `['npm', 'run', 'start:dist']`), in a process
   * group of its own that signals go to, as a terminal's Ctrl-C reaches a command and its children.
   */
  command?: readonly string[];
  /** The Node.js binary that runs the script (default: the one running this process). */
  execPath?: string;
  /** Arguments of `node` before the script, e.g. `['--cpu-prof']`. */
  nodeArgs?: readonly string[];
  /** A command the process runs under, e.g. `['strace', '-f', '-o', file]`. */
  prefix?: readonly string[];
  cwd?: string;
  /** Exactly the environment of the process, but for HOST and PORT, which are set here. */
  env: NodeJS.ProcessEnv;
  /** Started when GET `path` answers 2xx, polled every `everyMs` (each try cut at `attemptMs`). */
  ready: { path: string; withinMs: number; everyMs: number; attemptMs?: number };
  /** Every output line as it comes (before readiness too). */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
}

const TAIL_LINES = 400;

const running = new Set<ChildProcess>();

/** SIGKILLs every process started here that still runs (a harness's Ctrl-C or failure). */
export function killRunningServices(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
  }
}

async function answers(url: string, attemptMs: number): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(attemptMs) })).ok;
  } catch {
    return false; // not listening yet, or too slow this time
  }
}

/** Starts `node <script>` on a free port of 127.0.0.1 and waits until it answers (or dies). */
export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const name = options.name ?? 'service';
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const [command, ...args] = [
    ...(options.prefix ?? []),
    ...(options.command ?? [
      options.execPath ?? process.execPath,
      ...(options.nodeArgs ?? []),
      options.script,
    ]),
  ];
  const spawnedAt = performance.now();
  const child = spawn(command as string, args, {
    cwd: options.cwd,
    env: { ...options.env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.command !== undefined,
  });
  running.add(child);
  const raw: string[] = [];
  const listen = (stream: 'stdout' | 'stderr') => (line: string) => {
    raw.push(line);
    if (raw.length > TAIL_LINES) {
      raw.shift();
    }
    options.onLine?.(line, stream);
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', listen('stdout'));
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', listen('stderr'));
  let exit: Exit | null = null;
  const exited = new Promise<Exit>((resolve) => {
    // A command's group has ended when its output has: the command (npm) may exit first.
    child.once(options.command ? 'close' : 'exit', (code, signal) => {
      running.delete(child);
      exit = { code, signal };
      resolve(exit);
    });
  });
  const tail = (lines = 40): string => raw.slice(-lines).join('\n');
  const signal = (which: NodeJS.Signals): void => {
    if (child.exitCode === null && child.signalCode === null) {
      if (options.command) {
        process.kill(-(child.pid as number), which);
      } else {
        child.kill(which);
      }
    }
  };

  const { path, withinMs, everyMs, attemptMs = 2_000 } = options.ready;
  const deadline = performance.now() + withinMs;
  while (!(await answers(`${url}${path}`, attemptMs))) {
    if (exit || performance.now() > deadline) {
      // Whether it ended by itself, before the kill below ends it for sure.
      const ended: Exit | null = exit;
      signal('SIGKILL');
      await exited;
      throw new Error(
        ended
          ? `${name} exited during start (${JSON.stringify(ended)}):\n${tail()}`
          : `${name} did not answer ${path} within ${withinMs} ms:\n${tail()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return {
    name,
    child,
    pid: child.pid as number,
    url,
    spawnedAt,
    exited,
    signal,
    async kill() {
      signal('SIGKILL');
      return exited;
    },
    async stop(graceMs = 20_000) {
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
    tail,
  };
}
