import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/** The environment variable through which the pgbouncer project's pooler reaches the tests. */
export const PGBOUNCER_URL_VARIABLE = 'MEETINGS_TEST_PGBOUNCER_URL';

/** Set (true) in the globals of the pgbouncer project only (jest.config.js). */
declare const __THROUGH_PGBOUNCER__: boolean | undefined;

/**
 * pgbouncer's address as the tests' workers see it; null outside the pgbouncer project. The
 * set-up's variable reaches the workers of every project (jest's process environment is one), so
 * the project's own global decides whether its databases are reached through the pooler.
 */
export function pgbouncerUrl(): string | null {
  const inProject = typeof __THROUGH_PGBOUNCER__ !== 'undefined' && __THROUGH_PGBOUNCER__;
  return inProject ? process.env[PGBOUNCER_URL_VARIABLE] || null : null;
}

/** The database `direct` names, reached through the pooler at `pooler`. */
export function throughPooler(direct: string, pooler: string): string {
  const url = new URL(direct);
  const { hostname, port } = new URL(pooler);
  url.hostname = hostname;
  url.port = port;
  return url.toString();
}

/** pgbouncer's admin console (`SHOW POOLS`, `SHOW STATS`; simple queries only). */
export async function withPgbouncerAdmin<T>(fn: (admin: Client) => Promise<T>): Promise<T> {
  const url = new URL(pgbouncerUrl() ?? '');
  url.pathname = '/pgbouncer';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/** A pgbouncer this process started, and how to stop it. */
export interface RunningPgbouncer {
  /** postgres://postgres@127.0.0.1:<port>/ (any database of the target, by name). */
  url: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `postgres`'s uid and gid: pgbouncer refuses to run as root. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts pgbouncer (`binary`) in transaction mode on a free port of 127.0.0.1, in front of the
 * PostgreSQL server at `target` (every database by its own name, trusting the user postgres),
 * with a configuration written to a temporary directory; as the OS user postgres when run as
 * root. No `ignore_startup_parameters`: a start-up parameter pgbouncer does not know (such as
 * statement_timeout) fails the connection, as in a default installation.
 */
export async function startPgbouncer(binary: string, target: URL): Promise<RunningPgbouncer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'meetings-test-pgbouncer-'));
  const file = (name: string) => join(dir, name);
  writeFileSync(file('userlist.txt'), '"postgres" ""\n');
  writeFileSync(
    file('pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${file('userlist.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      'default_pool_size = 4',
      'max_client_conn = 500',
      `logfile = ${file('pgbouncer.log')}`,
      `pidfile = ${file('pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = postgresUser();
    for (const path of [dir, file('userlist.txt'), file('pgbouncer.ini')]) {
      chownSync(path, uid, gid);
    }
  }
  const command = asRoot ? 'runuser' : binary;
  const args = asRoot
    ? ['-u', 'postgres', '--', binary, file('pgbouncer.ini')]
    : [file('pgbouncer.ini')];
  const child: ChildProcess = spawn(command, args, { stdio: 'ignore' });
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
  });
  const log = () => {
    try {
      return readFileSync(file('pgbouncer.log'), 'utf8');
    } catch {
      return '(no log)';
    }
  };
  const url = `postgres://postgres@127.0.0.1:${port}/`;
  const stop = async (): Promise<void> => {
    if (!exited) {
      // The pidfile names pgbouncer itself; runuser, our child, waits for it.
      const pid = Number(readFileSync(file('pgbouncer.pid'), 'utf8').trim());
      process.kill(pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exit, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const started = Date.now();
  for (;;) {
    if (exited) {
      throw new Error(`pgbouncer exited at start:\n${log()}`);
    }
    const admin = new Client({ connectionString: `${url}pgbouncer` });
    try {
      await admin.connect();
      await admin.query('show version');
      await admin.end();
      return { url, stop };
    } catch (error) {
      await admin.end().catch(() => undefined);
      if (Date.now() - started > 10_000) {
        await stop().catch(() => undefined);
        throw new Error(`pgbouncer did not answer in 10 s (${String(error)}):\n${log()}`);
      }
      await sleep(100);
    }
  }
}
