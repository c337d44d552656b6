import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../../src/platform/shared/free-port';

/**
 * A throwaway PostgreSQL server for one test file: its own data directory, its own port on
 * 127.0.0.1, trust authentication. The machine's shared server is never touched.
 */
export interface ThrowawayPostgres {
  port: number;
  /** URL of the given database on this server. */
  url(database: string): string;
  /** `pg_ctl stop -m immediate`: the server dies at once, like a crash (no shutdown checkpoint). */
  stopImmediate(): Promise<void>;
  /** Starts it again on the same data directory and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (if running) and removes its directory. */
  destroy(): Promise<void>;
  /** The end of the server log, for failure reports. */
  logTail(lines?: number): string;
}

const POSTGRES_USER = 'postgres';

function binDir(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) {
    return null;
  }
  const versions = readdirSync(base)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const dir = join(base, version, 'bin');
    if (existsSync(join(dir, 'pg_ctl')) && existsSync(join(dir, 'initdb'))) {
      return dir;
    }
  }
  return null;
}

function userIds(name: string): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null;
  } catch {
    return null;
  }
}

/**
 * Whether a throwaway server can be run here: PostgreSQL refuses to run as root, so we must be
 * root (to run it as the `postgres` user) and have the server binaries. `null` when possible,
 * else the reason why not.
 */
export function throwawayPostgresUnavailable(): string | null {
  if (process.platform !== 'linux') {
    return 'not on Linux';
  }
  if (process.getuid?.() !== 0) {
    return 'not running as root (needed to run PostgreSQL as the postgres user)';
  }
  if (!binDir()) {
    return 'no PostgreSQL server binaries under /usr/lib/postgresql/<version>/bin';
  }
  if (!existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser')) {
    return 'runuser not found';
  }
  if (!userIds(POSTGRES_USER)) {
    return 'no postgres user';
  }
  return null;
}

function asPostgres(command: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'runuser',
      ['-u', POSTGRES_USER, '--', command, ...args],
      { timeout: timeoutMs, encoding: 'utf8', cwd: '/' },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        } else {
          resolve(stdout);
        }
      },
    );
  });
}

/** initdb + pg_ctl start as the postgres user, then creates `databases`. */
export async function startThrowawayPostgres(databases: string[]): Promise<ThrowawayPostgres> {
  const bin = binDir() as string;
  const ids = userIds(POSTGRES_USER) as { uid: number; gid: number };
  const root = mkdtempSync(join(tmpdir(), 'meetings-faults-pg-'));
  chownSync(root, ids.uid, ids.gid);
  const dataDir = join(root, 'data');
  const logFile = join(root, 'server.log');
  let port = 0;
  const pgCtl = (...args: string[]): Promise<string> =>
    asPostgres(join(bin, 'pg_ctl'), ['-D', dataDir, ...args]);
  const serverOptions = (): string =>
    [
      `-p ${port}`,
      `-c listen_addresses=127.0.0.1`,
      `-c unix_socket_directories=${root}`,
      '-c max_connections=50',
      '-c shared_buffers=16MB',
    ].join(' ');
  const start = async (): Promise<void> => {
    await pgCtl('-l', logFile, '-w', '-t', '60', '-o', serverOptions(), 'start');
  };
  const destroy = async (): Promise<void> => {
    if (existsSync(join(dataDir, 'postmaster.pid'))) {
      await pgCtl('-m', 'immediate', '-w', '-t', '30', 'stop').catch(() => undefined);
    }
    rmSync(root, { recursive: true, force: true });
  };
  const logTail = (lines = 30): string => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no server log)';
    }
  };
  try {
    await asPostgres(join(bin, 'initdb'), [
      '-D',
      dataDir,
      '-A',
      'trust',
      '-U',
      POSTGRES_USER,
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    // Another process may take the port between the probe and the start: try a few.
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      try {
        await start();
        break;
      } catch (error) {
        if (attempt >= 3) {
          throw error;
        }
      }
    }
    const admin = new Client({
      connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    });
    await admin.connect();
    try {
      for (const name of databases) {
        await admin.query(`create database "${name}"`);
      }
    } finally {
      await admin.end();
    }
  } catch (error) {
    const log = logTail();
    await destroy();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${log}`);
  }
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stopImmediate: async () => {
      await pgCtl('-m', 'immediate', '-w', '-t', '30', 'stop');
    },
    start,
    destroy,
    logTail,
  };
}
