import { readFileSync } from 'node:fs';
import {
  type Exit,
  type ServiceProcess as ChildService,
  startServiceProcess,
} from '../../helpers/service-process';

export type { Exit };
export { freePort } from '../../../src/platform/shared/free-port';

/** One JSON log line of the service (pino). */
export interface LogLine {
  level?: number;
  msg?: string;
  [key: string]: unknown;
}

/** The service running as a child process (`node <build>/src/main.js`), its logs parsed. */
export interface ServiceProcess extends ChildService {
  /** Every log line so far (bounded), for assertions and failure reports. */
  logs: LogLine[];
  /** Lines the service wrote that are not one JSON object (each should be; kept up to 100). */
  notJson: string[];
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

/** Starts the service on a free port of 127.0.0.1 and waits until it is alive (or dies). */
export async function startService(
  main: string,
  env: NodeJS.ProcessEnv,
  options: {
    startTimeoutMs?: number;
    /** A command the service runs under, e.g. `['strace', '-f', '-o', file]`. */
    prefix?: readonly string[];
  } = {},
): Promise<ServiceProcess> {
  const logs: LogLine[] = [];
  const notJson: string[] = [];
  const service = await startServiceProcess({
    script: main,
    prefix: options.prefix,
    env,
    ready: {
      path: '/health/liveness',
      withinMs: options.startTimeoutMs ?? 30_000,
      everyMs: 100,
      attemptMs: 1_000,
    },
    onLine: (line) => {
      if (logs.length >= MAX_LOG_LINES) {
        return;
      }
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        logs.push({ msg: line });
        if (notJson.length < 100) {
          notJson.push(line);
        }
      }
    },
  });
  return { ...service, logs, notJson };
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
