import { connect } from 'node:net';
import { Client, type DatabaseError } from 'pg';
import { StartupError } from '../shared/startup-error';

/** How long the first connection may take before the database counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/** The parts of a connection URL an operator may see: never the password. */
interface Target {
  variable: string;
  /** host:port */
  where: string;
  host: string;
  port: number;
  database: string;
  user: string;
}

function targetOf(url: string, variable: string): Target {
  const parsed = new URL(url);
  const host = parsed.hostname || 'localhost';
  const port = Number(parsed.port || 5432);
  return {
    variable,
    where: `${host}:${port}`,
    host,
    port,
    database: decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username),
    user: decodeURIComponent(parsed.username) || 'postgres',
  };
}

/** Whether anything accepts a TCP connection there (a refused, unknown or silent host does not). */
function reachable(target: Target): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: target.host, port: target.port });
    const done = (problem: string | null): void => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => done(`no answer in ${CONNECT_TIMEOUT_MS} ms`));
    socket.once('connect', () => done(null));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

const isDatabaseError = (error: unknown): error is DatabaseError =>
  error instanceof Error &&
  typeof (error as Partial<DatabaseError>).code === 'string' &&
  /^[0-9A-Z]{5}$/.test((error as DatabaseError).code ?? '');

async function createDatabase(url: string, target: Target): Promise<void> {
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new Client({
    connectionString: maintenance.href,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  try {
    await client.connect();
    await client.query(`create database ${client.escapeIdentifier(target.database)}`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(
      `database "${target.database}" does not exist at ${target.where} (${target.variable}) and could not be created: ${reason}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Before the ORM and its pool start: the server `url` (named by `variable`) is reached, speaks
 * PostgreSQL and lets the user in; each failure is one line naming the variable, host and port.
 * A database that does not exist yet is created (as the ORM did, silently) and said so.
 */
export async function checkPostgres(
  url: string,
  variable: string,
  onCreated: (message: string) => void,
): Promise<void> {
  const target = targetOf(url, variable);
  const unreachable = await reachable(target);
  if (unreachable !== null) {
    throw new StartupError(
      `cannot reach the database at ${target.where} named by ${variable} (${unreachable})`,
    );
  }
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A server that is not PostgreSQL may make the client emit an error after the handshake failed.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    if (isDatabaseError(error) && error.code === '3D000') {
      await createDatabase(url, target);
      onCreated(`created database "${target.database}" at ${target.where} (${variable})`);
      return;
    }
    if (isDatabaseError(error)) {
      throw new StartupError(
        `the database at ${target.where} (${variable}) refused user "${target.user}": ${error.message}`,
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(
      `the server at ${target.where} named by ${variable} does not answer as PostgreSQL (${reason})`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
