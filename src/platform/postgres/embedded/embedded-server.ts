import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../shared/free-port';
import { postgresBinaries } from './binaries';
import { DataDirectoryBusyError, DataDirectoryLock } from './data-dir-lock';
import { runningServerPid, runProgram } from './postgres-process';
import { launch, START_TIMEOUT_MS, StartFailure, waitUntilAccepting } from './server-launch';
import {
  DEFAULT_RESTART_ATTEMPTS,
  type EmbeddedHealth,
  type HealthChange,
  type ServerRun,
  ServerSupervisor,
} from './supervisor';

/** A PostgreSQL server on an embedded data directory, started by us or by another process. */
export interface EmbeddedServer {
  /** Connection URL of the application database (carries the generated password). */
  url: string;
  /** True when this process started the server and stops it in `stop()`. */
  owned: boolean;
  stop(): Promise<void>;
  /** Whether the server runs (supervised when owned; a joined server is always `up` to us). */
  health(): EmbeddedHealth;
  /** Calls `listener` on each change of health; returns how to stop calling it. */
  onHealthChange(listener: (change: HealthChange) => void): () => void;
}

export interface EmbeddedServerOptions {
  /**
   * When another live process serves the directory: true joins its server (short commands such
   * as seed and migrate); false refuses with DataDirectoryBusyError (a second service).
   */
  attach: boolean;
  log?: (message: string) => void;
  /** Restart attempts when the server we started dies (default DEFAULT_RESTART_ATTEMPTS). */
  restartAttempts?: number;
  /** Server settings over SERVER_SETTINGS (the test suite's server serves many apps at once). */
  settings?: Readonly<Record<string, string>>;
}

interface Credentials {
  user: string;
  password: string;
  database: string;
}

const START_ATTEMPTS = 5;
/** Start-up failures that pass: a port taken meanwhile, a dead server's processes still exiting. */
const transient =
  /could not bind|could not create any TCP\/IP sockets|is still in use|postmaster\.pid/;

/** The files of an embedded data directory. */
function layout(dataDir: string) {
  return {
    pgdata: join(dataDir, 'postgres'),
    lock: join(dataDir, 'embedded.lock'),
    credentials: join(dataDir, 'credentials.json'),
    log: join(dataDir, 'postgres.log'),
  };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function urlOf(credentials: Credentials, port: number, database = credentials.database): string {
  return `postgres://${credentials.user}:${credentials.password}@127.0.0.1:${port}/${database}`;
}

/** Creates the cluster in a scratch directory, then renames it: a crash never leaves half of one. */
function initialise(initdb: string, dataDir: string): void {
  const files = layout(dataDir);
  const credentials: Credentials = {
    user: 'postgres',
    password: randomBytes(24).toString('hex'),
    database: 'meetings',
  };
  const scratch = `${files.pgdata}.init`;
  const passwordFile = join(dataDir, '.initdb-password');
  rmSync(scratch, { recursive: true, force: true });
  writeFileSync(passwordFile, credentials.password, { mode: 0o600 });
  try {
    runProgram(initdb, [
      ...['-D', scratch, '-U', credentials.user, `--pwfile=${passwordFile}`],
      ...['--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'],
      // Unicode case rules (lower(), ilike) built into PostgreSQL, the same on every machine.
      ...['--locale-provider=builtin', '--builtin-locale=C.UTF-8', '--no-instructions'],
    ]);
  } finally {
    rmSync(passwordFile, { force: true });
  }
  writeFileSync(files.credentials, JSON.stringify(credentials), { mode: 0o600 });
  renameSync(scratch, files.pgdata);
}

/** Waits for a server left by a dead service to finish its shutdown (its watchdog asked it to). */
async function waitForLeftoverServer(pgdata: string, log?: (message: string) => void) {
  let pid = runningServerPid(pgdata);
  if (pid === null) {
    return;
  }
  log?.(`waiting for the previous embedded server (pid ${pid}) to stop`);
  for (let waited = 0; pid !== null; waited += 100) {
    if (waited === 20_000) {
      process.kill(pid, 'SIGINT');
    }
    if (waited > 40_000) {
      throw new Error(`a PostgreSQL server (pid ${pid}) still runs on ${pgdata}; stop it first`);
    }
    await sleep(100);
    pid = runningServerPid(pgdata);
  }
}

async function ensureDatabase(credentials: Credentials, port: number): Promise<void> {
  const client = new Client({ connectionString: urlOf(credentials, port, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [
      credentials.database,
    ]);
    if (found.rowCount === 0) {
      await client.query(`create database "${credentials.database}"`);
    }
  } finally {
    await client.end();
  }
}

/** Joins the server another process runs on the directory. */
async function attach(dataDir: string, port: number): Promise<EmbeddedServer> {
  const files = layout(dataDir);
  const deadline = Date.now() + START_TIMEOUT_MS;
  // The holder may still be creating the cluster, which writes the credentials.
  while (!existsSync(files.credentials)) {
    if (Date.now() > deadline || !DataDirectoryLock.holder(files.lock)) {
      throw new Error(`the process serving ${dataDir} did not finish creating its database`);
    }
    await sleep(100);
  }
  const credentials = JSON.parse(readFileSync(files.credentials, 'utf8')) as Credentials;
  const url = urlOf(credentials, port);
  await waitUntilAccepting(url, () =>
    DataDirectoryLock.holder(files.lock) ? null : 'the process serving the database stopped',
  );
  return {
    url,
    owned: false,
    stop: async () => {},
    // The holder supervises its server; a short command that joined it has nothing to watch.
    health: () => 'up',
    onHealthChange: () => () => undefined,
  };
}

/**
 * Opens the embedded PostgreSQL server of a data directory: starts it (creating the cluster on
 * first use) and holds the directory's lock until `stop()`, or joins or refuses the server another
 * live process holds. PostgreSQL's own postmaster.pid guards the cluster files as well.
 */
export async function openEmbeddedServer(
  dataDirectory: string,
  options: EmbeddedServerOptions,
): Promise<EmbeddedServer> {
  const dataDir = resolve(dataDirectory);
  const files = layout(dataDir);
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new Error(
      `${dataDir} holds a database of the earlier embedded engine (PGlite), which this version ` +
        'no longer reads; move it away (or set DATA_DIR to another directory) to start afresh',
    );
  }
  const taken = DataDirectoryLock.acquire(files.lock, await freePort());
  if ('heldBy' in taken) {
    if (!options.attach) {
      throw new DataDirectoryBusyError(dataDir, taken.heldBy);
    }
    options.log?.(`joining the embedded database served by process ${taken.heldBy.pid}`);
    return attach(dataDir, taken.heldBy.port);
  }
  const { lock } = taken;
  try {
    const binaries = await postgresBinaries();
    if (!existsSync(join(files.pgdata, 'PG_VERSION'))) {
      options.log?.(`creating the embedded database in ${dataDir}`);
      initialise(binaries.initdb, dataDir);
    }
    await waitForLeftoverServer(files.pgdata, options.log);
    const credentials = JSON.parse(readFileSync(files.credentials, 'utf8')) as Credentials;
    for (let attempt = 1; ; attempt += 1) {
      const port = lock.holder.port;
      // The server on this port: started now, and again by the supervisor after a crash.
      const start = (): Promise<ServerRun> =>
        launch(binaries, files, port, urlOf(credentials, port, 'postgres'), lock, options.settings);
      let run: ServerRun;
      try {
        run = await start();
      } catch (error) {
        const failure = error instanceof StartFailure ? error.log : null;
        if (failure === null || attempt === START_ATTEMPTS || !transient.test(failure)) {
          throw error;
        }
        // Another program took the port, or a killed server's processes are still exiting.
        await sleep(500);
        lock.movePort(await freePort());
        continue;
      }
      try {
        await ensureDatabase(credentials, port);
      } catch (error) {
        await run.stop(false);
        throw error;
      }
      // Restarts keep the port: the pool and the event listener reconnect to the same URL.
      const supervisor = new ServerSupervisor(run, start, () => lock.release(), {
        attempts: options.restartAttempts ?? DEFAULT_RESTART_ATTEMPTS,
      });
      return {
        url: urlOf(credentials, port),
        owned: true,
        stop: () => supervisor.stop(),
        health: () => supervisor.health,
        onHealthChange: (listener) => supervisor.onChange(listener),
      };
    }
  } catch (error) {
    lock.release();
    throw error;
  }
}
