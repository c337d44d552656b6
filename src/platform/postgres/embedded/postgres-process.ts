import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import type { PostgresBinaries } from './binaries';

/** Server settings: durable, small, reachable only from this machine. */
export const SERVER_SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: '127.0.0.1',
  // TCP only: no socket files in /tmp to collide with a system PostgreSQL's.
  unix_socket_directories: '',
  // A commit is acknowledged once its WAL is on disk (PostgreSQL's defaults, stated so they hold).
  fsync: 'on',
  synchronous_commit: 'on',
  full_page_writes: 'on',
  // Small: the embedded default serves one developer's service, seed and cluster workers. An
  // instance opens up to ~31 connections (requests 10, its job queues' pools with the webhook
  // attempts' N + 4 workers, the event listener, heartbeats): two cluster workers fit in 100.
  shared_buffers: '16MB',
  max_connections: '100',
  io_method: 'sync',
  huge_pages: 'off',
};

/** The uid and gid of `nobody`, whom PostgreSQL runs as inside a user namespace when we are root. */
function nobody(): { uid: number; gid: number } {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('nobody:'));
    const [, , uid, gid] = line?.split(':') ?? [];
    if (uid && gid) {
      return { uid: Number(uid), gid: Number(gid) };
    }
  } catch {
    // no passwd file: the conventional ids
  }
  return { uid: 65534, gid: 65534 };
}

/**
 * The command that runs a PostgreSQL program. PostgreSQL refuses to run as root; as root (CI and
 * containers here) it runs in a user namespace where we are `nobody`, so the files it writes stay
 * ours outside and no system user or chown is needed.
 */
export function unprivileged(program: string, args: readonly string[]): [string, string[]] {
  if (process.getuid?.() !== 0) {
    return [program, [...args]];
  }
  const { uid, gid } = nobody();
  return ['unshare', ['--user', `--map-user=${uid}`, `--map-group=${gid}`, program, ...args]];
}

/** Runs a PostgreSQL program to completion, with its output in the error when it fails. */
export function runProgram(program: string, args: readonly string[]): void {
  const [command, commandArgs] = unprivileged(program, args);
  try {
    execFileSync(command, commandArgs, { stdio: 'pipe' });
  } catch (error) {
    const output = (error as { stderr?: Buffer; stdout?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`${program} failed: ${output.trim() || String(error)}`);
  }
}

/*
 * The server runs under a small shell that holds a pipe from us: when we end it, or die in any
 * way (kill -9 included), the pipe closes and the shell asks the server for a fast shutdown. So
 * no server outlives its service. The server gets no copy of the pipe; the shell exits with it.
 */
const WATCHDOG = `
exec 3<&0
"$@" 3<&- </dev/null &
server=$!
( read _ <&3; kill -INT "$server" 2>/dev/null ) &
watcher=$!
wait "$server"
status=$?
kill "$watcher" 2>/dev/null
exit $status
`;

/** Starts `postgres` on a data directory (detached: a terminal's Ctrl-C reaches only us). */
export function spawnServer(
  binaries: PostgresBinaries,
  pgdata: string,
  port: number,
  logFile: string,
  overrides: Readonly<Record<string, string>> = {},
): ChildProcess {
  const settings = Object.entries({ ...SERVER_SETTINGS, ...overrides, port: String(port) }).flatMap(
    ([name, value]) => ['-c', `${name}=${value}`],
  );
  const [command, args] = unprivileged(binaries.postgres, ['-D', pgdata, ...settings]);
  const log = openSync(logFile, 'a', 0o600);
  try {
    const child = spawn('sh', ['-c', WATCHDOG, 'embedded-postgres', command, ...args], {
      detached: true,
      stdio: ['pipe', log, log],
    });
    // Neither the shell nor its pipe keeps our event loop alive; stop() ends them.
    child.unref();
    // A piped stdin is a socket (typed as a plain Writable).
    if (child.stdin instanceof Socket) {
      child.stdin.unref();
    }
    return child;
  } finally {
    closeSync(log);
  }
}

/** The pid of a server still running on `pgdata` (a dying service's, shutting down), if any. */
export function runningServerPid(pgdata: string): number | null {
  const pidFile = `${pgdata}/postmaster.pid`;
  if (!existsSync(pidFile)) {
    return null;
  }
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) {
    return null;
  }
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

/** The last lines of the server's log, for error messages. */
export function logTail(logFile: string, lines = 8): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
