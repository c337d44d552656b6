import { execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/**
 * A real PostgreSQL primary and one streaming replica (PostgreSQL's own physical replication), each
 * a server of its own on a free port, made with the distribution's tools (`initdb`, `pg_ctl`,
 * `pg_basebackup`: the embedded binaries have no `pg_basebackup`). PostgreSQL refuses to run as
 * root: as root, every tool runs as the `postgres` user.
 */
export interface StreamingPair {
  /** The database on the primary the service uses. */
  primaryUrl: string;
  replicaUrl: string;
  /** Stops the replica at once (as a crash would). */
  stopReplica(): void;
  startReplica(): void;
  /** Stops both servers and removes their files. */
  close(): void;
}

const VERSIONS_DIR = '/usr/lib/postgresql';

/** The directory of the distribution's PostgreSQL tools, or why there is none. */
export function postgresTools(): { bin: string } | { missing: string } {
  const versions = existsSync(VERSIONS_DIR)
    ? readdirSync(VERSIONS_DIR)
        .filter((version) => existsSync(join(VERSIONS_DIR, version, 'bin', 'pg_basebackup')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const [newest] = versions;
  if (!newest) {
    return { missing: `no PostgreSQL with pg_basebackup under ${VERSIONS_DIR}` };
  }
  if (process.getuid?.() === 0 && !existsSync('/usr/sbin/runuser')) {
    return { missing: 'running as root without runuser to become postgres' };
  }
  return { bin: join(VERSIONS_DIR, newest, 'bin') };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts a primary and a replica replaying `applyDelayMs` behind it (recovery_min_apply_delay). */
export async function startStreamingPair(applyDelayMs: number): Promise<StreamingPair> {
  const tools = postgresTools();
  if ('missing' in tools) {
    throw new Error(tools.missing);
  }
  const asRoot = process.getuid?.() === 0;
  const run = (tool: string, args: readonly string[]): void => {
    const program = join(tools.bin, tool);
    if (asRoot) {
      execFileSync('/usr/sbin/runuser', ['-u', 'postgres', '--', program, ...args], {
        stdio: 'pipe',
      });
    } else {
      execFileSync(program, args, { stdio: 'pipe' });
    }
  };
  const root = mkdtempSync(join(tmpdir(), 'meetings-replica-'));
  if (asRoot) {
    chownSync(root, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), 0);
  }
  const primaryDir = join(root, 'primary');
  const replicaDir = join(root, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  // Every instance of the service opens about 14 connections on the primary (its pools, the
  // job queue's, the event listener); a test runs up to four: 60 was seen refused ("too many
  // clients", a 503) under a loaded CI. A standby needs at least the primary's figure.
  const settings = (port: number) =>
    `\nport = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${root}'\n` +
    `fsync = off\nmax_connections = 200\n`;
  const start = (dir: string) =>
    run('pg_ctl', [
      '-D',
      dir,
      '-l',
      join(root, `${dir === primaryDir ? 'primary' : 'replica'}.log`),
      '-w',
      'start',
    ]);
  const stop = (dir: string, mode: 'fast' | 'immediate') => {
    try {
      run('pg_ctl', ['-D', dir, '-m', mode, '-w', 'stop']);
    } catch {
      // Not running.
    }
  };
  try {
    run('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
    appendFileSync(primaryDir + '/postgresql.conf', settings(primaryPort));
    start(primaryDir);
    const admin = new Client({
      connectionString: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    });
    await admin.connect();
    await admin.query('create database meetings');
    await admin.end();
    run('pg_basebackup', [
      '-D',
      replicaDir,
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-R',
      '-X',
      'stream',
      // A spread checkpoint waits minutes for one (checkpoint_completion_target).
      '--checkpoint=fast',
      '--no-sync',
    ]);
    appendFileSync(
      replicaDir + '/postgresql.conf',
      settings(replicaPort) + `recovery_min_apply_delay = '${applyDelayMs}ms'\n`,
    );
    start(replicaDir);
  } catch (error) {
    stop(replicaDir, 'immediate');
    stop(primaryDir, 'immediate');
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/meetings`,
    replicaUrl: `postgres://postgres@127.0.0.1:${replicaPort}/meetings`,
    stopReplica: () => stop(replicaDir, 'immediate'),
    startReplica: () => start(replicaDir),
    close() {
      stop(replicaDir, 'immediate');
      stop(primaryDir, 'immediate');
      rmSync(root, { recursive: true, force: true });
    },
  };
}
