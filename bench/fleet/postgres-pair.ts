import { appendFileSync, chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from '../../src/platform/shared/free-port';
import { postgresTools } from '../../test/helpers/streaming-replica';
import { program, run, userIds } from './commands';
import { PostgresServer } from './postgres-server';

// The fleet's database: a PostgreSQL primary and a streaming replica of it (physical replication
// through a replication slot, hot standby), both on a free port of 127.0.0.1 and of the gateway
// address, made with the distribution's tools as the `postgres` user.

export const DATABASE = 'meetings';
const SLOT = 'mtgfleet_replica';

export interface PostgresPairOptions {
  /** A directory of its own (created here, owned by postgres): the data directories. */
  dir: string;
  logDir: string;
  /** The address the hosts reach it at (besides 127.0.0.1). */
  address: string;
  /** The subnet the hosts are on (trusted by pg_hba.conf). */
  subnet: string;
}

function settings(port: number, address: string, socketDir: string): string {
  return [
    '',
    '# mtgfleet',
    `port = ${port}`,
    `listen_addresses = '127.0.0.1,${address}'`,
    `unix_socket_directories = '${socketDir}'`,
    'fsync = off',
    'max_connections = 150',
    'wal_level = replica',
    'max_wal_senders = 10',
    'max_replication_slots = 10',
    'hot_standby = on',
    'hot_standby_feedback = on',
    '',
  ].join('\n');
}

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {
    // The server went away meanwhile: the query below fails.
  });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export class PostgresPair {
  private readonly primaryDir: string;
  private readonly replicaDir: string;
  private primary: PostgresServer | null = null;
  private replica: PostgresServer | null = null;
  private ports = { primary: 0, replica: 0 };

  constructor(private readonly options: PostgresPairOptions) {
    this.primaryDir = join(options.dir, 'primary');
    this.replicaDir = join(options.dir, 'replica');
  }

  private url(port: number, database = DATABASE): string {
    return `postgres://postgres@${this.options.address}:${port}/${database}`;
  }

  /** The service's database on the primary, at the gateway address. */
  get primaryUrl(): string {
    return this.url(this.ports.primary);
  }

  get replicaUrl(): string {
    return this.url(this.ports.replica);
  }

  /** Makes both servers (initdb, the database, a base backup) and starts them. */
  async start(): Promise<void> {
    const tools = postgresTools();
    if ('missing' in tools) {
      throw new Error(tools.missing);
    }
    const { dir, logDir, address, subnet } = this.options;
    const user = userIds('postgres');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chownSync(dir, user.uid, user.gid);
    const asPostgres = (tool: string, args: string[]) =>
      run([program('runuser'), '-u', 'postgres', '--', join(tools.bin, tool), ...args], {
        cwd: dir,
      });
    this.ports = { primary: await freePort(), replica: await freePort() };
    const server = (name: 'primary' | 'replica') =>
      new PostgresServer({
        name,
        bin: tools.bin,
        dataDir: name === 'primary' ? this.primaryDir : this.replicaDir,
        port: this.ports[name],
        logDir,
        user,
      });

    await asPostgres('initdb', [
      '-D',
      this.primaryDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '--no-instructions',
    ]);
    appendFileSync(
      join(this.primaryDir, 'postgresql.conf'),
      settings(this.ports.primary, address, dir),
    );
    appendFileSync(
      join(this.primaryDir, 'pg_hba.conf'),
      `\nhost all all ${subnet} trust\nhost replication all ${subnet} trust\n`,
    );
    this.primary = server('primary');
    await this.primary.start();
    await query(this.primary.adminUrl, `create database ${DATABASE}`);

    await asPostgres('pg_basebackup', [
      '-D',
      this.replicaDir,
      '-h',
      '127.0.0.1',
      '-p',
      String(this.ports.primary),
      '-U',
      'postgres',
      // standby.signal and primary_conninfo; a slot keeps the WAL a stopped replica still needs.
      '-R',
      '--create-slot',
      `--slot=${SLOT}`,
      '-X',
      'stream',
      // A spread checkpoint waits minutes for one (checkpoint_completion_target).
      '--checkpoint=fast',
      '--no-sync',
    ]);
    // The primary's settings came with the copy: the replica's port after them wins.
    appendFileSync(join(this.replicaDir, 'postgresql.conf'), `\nport = ${this.ports.replica}\n`);
    this.replica = server('replica');
    await this.replica.start();
  }

  private need(which: 'primary' | 'replica'): PostgresServer {
    const server = this[which];
    if (!server) {
      throw new Error(`the fleet's ${which} was not started`);
    }
    return server;
  }

  /** Fast restart of the primary; resolves when it accepts connections again. */
  async restartPrimary(): Promise<void> {
    const primary = this.need('primary');
    await primary.stopFast();
    await primary.start();
  }

  /** Immediate stop of the replica, as a crash. */
  stopReplica(): void {
    this.need('replica').crash();
  }

  /** Starts the replica again (after its earlier run has ended); resolves when it accepts connections. */
  async startReplica(): Promise<void> {
    const replica = this.need('replica');
    await replica.stopped();
    await replica.start();
  }

  /**
   * Sets the replica's recovery_min_apply_delay (0 clears it) and resolves once the replica's
   * configuration shows it.
   */
  async setReplicaDelay(ms: number): Promise<void> {
    if (!Number.isInteger(ms) || ms < 0) {
      throw new Error(`a replica delay is a whole number of ms ≥ 0, not ${ms}`);
    }
    const url = this.need('replica').adminUrl;
    await query(
      url,
      ms === 0
        ? 'alter system reset recovery_min_apply_delay'
        : `alter system set recovery_min_apply_delay = '${ms}ms'`,
    );
    await query(url, 'select pg_reload_conf()');
    const deadline = performance.now() + 10_000;
    for (;;) {
      const result = await query(
        url,
        "select setting from pg_settings where name = 'recovery_min_apply_delay'",
      );
      if (Number((result.rows[0] as { setting: string }).setting) === ms) {
        return;
      }
      if (performance.now() > deadline) {
        throw new Error(`the replica did not take recovery_min_apply_delay = ${ms}ms`);
      }
      await sleep(50);
    }
  }

  /** Resolves when both servers' processes have ended (and were reaped). */
  async exited(): Promise<void> {
    await Promise.all([this.primary?.stopped(), this.replica?.stopped()]);
  }

  /** Stops both servers at once (synchronously), whatever stage the start reached. */
  stop(): void {
    this.replica?.stop();
    this.primary?.stop();
  }
}
