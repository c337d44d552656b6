import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort } from '../../../src/shared/free-port';
import { createInterface } from 'node:readline';

/** One JSON log line of the service (pino). */
export interface LogLine {
  level?: number;
  msg?: string;
  [key: string]: unknown;
}

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The service running as a child process (`node <build>/src/main.js`). */
export interface ServiceProcess {
  child: ChildProcess;
  pid: number;
  /** Base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  /** Every log line so far (bounded), for assertions and failure reports. */
  logs: LogLine[];
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** Sends a signal if the process still runs. */
  signal(signal: NodeJS.Signals): void;
  /** SIGKILLs it (if still running) and waits for the exit. */
  kill(): Promise<Exit>;
  /** The last log lines, as text, for failure messages. */
  tail(lines?: number): string;
}

const MAX_LOG_LINES = 20_000;

/** Environment shared by every fault test: no auth rate limits, quiet logs. */
export function serviceEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_AUTH_PER_IP: '1000000',
    RATE_LIMIT_AUTH_PER_ACCOUNT: '1000000',
    ...extra,
  };
  return env;
}

export { freePort };

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health/liveness`, { signal: AbortSignal.timeout(1_000) });
    return response.status === 204;
  } catch {
    return false;
  }
}

/** Starts the service on a free port of 127.0.0.1 and waits until it answers (or dies). */
export async function startService(
  main: string,
  env: NodeJS.ProcessEnv,
  options: {
    startTimeoutMs?: number;
    /** A command the service runs under, e.g. `['strace', '-f', '-o', file]`. */
    prefix?: readonly string[];
  } = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const [command, ...args] = [...(options.prefix ?? []), process.execPath, main];
  const child = spawn(command as string, args, {
    env: { ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const raw: string[] = [];
  const push = (line: string): void => {
    raw.push(line);
    if (raw.length > 400) {
      raw.shift();
    }
    let parsed: LogLine;
    try {
      parsed = JSON.parse(line) as LogLine;
    } catch {
      parsed = { msg: line };
    }
    if (logs.length < MAX_LOG_LINES) {
      logs.push(parsed);
    }
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', push);
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', push);
  let exit: Exit | null = null;
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  const tail = (lines = 40): string => raw.slice(-lines).join('\n');
  const signal = (name: NodeJS.Signals): void => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(name);
    }
  };

  const deadline = performance.now() + (options.startTimeoutMs ?? 30_000);
  while (!(await answers(url))) {
    if (exit || performance.now() > deadline) {
      signal('SIGKILL');
      await exited;
      throw new Error(
        exit
          ? `service exited during start (${JSON.stringify(exit)}):\n${tail()}`
          : `service did not answer within ${options.startTimeoutMs ?? 30_000} ms:\n${tail()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    pid: child.pid as number,
    url,
    logs,
    exited,
    signal,
    async kill() {
      signal('SIGKILL');
      return exited;
    },
    tail,
  };
}

/**
 * The server side of a local TCP port, from /proc/net/tcp (Linux): for each client port with an
 * established connection, the bytes the server has not read yet — 0 once the service has accepted
 * the connection and read the request (a request of one small segment is then parsed and in its
 * hands). `null` when the table cannot be read.
 */
export function unreadByClientPort(url: string): Map<number, number> | null {
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return null;
  }
  const serverPort = Number(new URL(url).port);
  const unread = new Map<number, number>();
  for (const line of table.split('\n').slice(1)) {
    const [, local, remote, state, queues] = line.trim().split(/\s+/);
    if (state !== '01' || !local || !remote || !queues) {
      continue; // 01: ESTABLISHED
    }
    if (parseInt(local.split(':')[1] ?? '', 16) !== serverPort) {
      continue;
    }
    unread.set(parseInt(remote.split(':')[1] ?? '', 16), parseInt(queues.split(':')[1] ?? '', 16));
  }
  return unread;
}
