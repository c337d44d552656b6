import { execFile, execFileSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Running the system's programs (ip, haproxy, PostgreSQL's tools) and looking at processes: what
// the other files of the fleet share.

/** Where a program is (PATH, then the system directories root's PATH may lack), or null. */
export function findProgram(name: string): string | null {
  const dirs = [...(process.env['PATH'] ?? '').split(':'), '/usr/sbin', '/sbin', '/usr/bin'];
  for (const dir of dirs.filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

/** The path of a program the fleet needs (fleetUnavailable() said it is there). */
export function program(name: string): string {
  const path = findProgram(name);
  if (!path) {
    throw new Error(`${name} not found`);
  }
  return path;
}

function failure(command: readonly string[], error: unknown): Error {
  const output = (error as { stderr?: Buffer | string; stdout?: Buffer | string }) ?? {};
  const text = `${String(output.stderr ?? '')}${String(output.stdout ?? '')}`.trim();
  const message = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
  return new Error(`${command.join(' ')} failed: ${text || message}`);
}

/** Runs a command to its end (without blocking the event loop); rejects with its output. */
export function run(
  command: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<string> {
  const [file, ...args] = command;
  return new Promise((resolve, reject) => {
    execFile(
      file as string,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 120_000,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) {
          reject(failure(command, Object.assign(error, { stdout, stderr })));
        } else {
          resolve(stdout);
        }
      },
    );
  });
}

/** Runs a short command synchronously (link changes, teardown); throws with its output. */
export function runSync(command: readonly string[]): string {
  const [file, ...args] = command;
  try {
    return execFileSync(file as string, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
      killSignal: 'SIGKILL',
    }).toString();
  } catch (error) {
    throw failure(command, error);
  }
}

/** As runSync, but a failure is only reported (teardown goes on). */
export function tryRunSync(command: readonly string[]): string | null {
  try {
    return runSync(command);
  } catch {
    return null;
  }
}

/** Whether a process exists (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The command name of a process (/proc/<pid>/comm), or null when it is gone. */
export function commandName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

/** Sends a signal, ignoring a process that is already gone. */
export function signal(pid: number, which: NodeJS.Signals): void {
  try {
    process.kill(pid, which);
  } catch {
    // gone
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks for a moment (synchronous teardown waiting for a process to go). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Waits (blocking) until none of `pids` is alive or `withinMs` passed; answers those left. */
export function waitGoneSync(pids: readonly number[], withinMs: number): number[] {
  const deadline = Date.now() + withinMs;
  let left = pids.filter(isAlive);
  while (left.length > 0 && Date.now() < deadline) {
    sleepSync(20);
    left = left.filter(isAlive);
  }
  return left;
}

/** The uid and gid of a user (PostgreSQL's tools refuse to run as root). */
export function userIds(name: string): { uid: number; gid: number } {
  return {
    uid: Number(runSync(['id', '-u', name]).trim()),
    gid: Number(runSync(['id', '-g', name]).trim()),
  };
}
