import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { buildService, type ServiceBuild } from '../faults/support/build';
import { freePort } from '../../src/platform/shared/free-port';
import { adminUrl } from '../helpers/test-database';

/** What a command printed and how it ended. */
interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every non-empty line of stdout and stderr. */
  lines: string[];
}

let build: ServiceBuild;
let scratch: string;

/** Runs one compiled command (e.g. `src/main.js`) with exactly `env` (plus PATH) and `args`. */
function run(script: string, env: Record<string, string>, args: string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(build.main, '..', '..', script), ...args],
      {
        env: { PATH: process.env['PATH'], LOG_FORMAT: 'json', ...env },
        timeout: 20_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        const lines = `${stdout}\n${stderr}`.split('\n').filter((line) => line.trim() !== '');
        resolve({ code, stdout, stderr, lines });
      },
    );
  });
}

/** The one log line a failed start wrote, parsed. */
function onlyLogLine(result: Run): { level: number; msg: string } {
  expect(result.lines).toHaveLength(1);
  return JSON.parse(result.lines[0] as string) as { level: number; msg: string };
}

function listening(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

beforeAll(() => {
  build = buildService();
  scratch = mkdtempSync(join(tmpdir(), 'meetings-startup-'));
});

afterAll(() => {
  build.remove();
  rmSync(scratch, { recursive: true, force: true });
});

describe('--help on every command', () => {
  const commands = [
    ['start', 'src/main.js', 'npm start'],
    ['cluster', 'src/cluster.js', 'npm run start:cluster'],
    ['migrate', 'src/db/migrate.js', 'npm run migrate'],
    ['seed', 'src/db/seed/seed.js', 'npm run seed'],
  ] as const;

  it.each(commands)(
    '%s prints its usage and exits 0 without opening, creating or migrating anything',
    async (_name, script, command) => {
      const dataDir = join(scratch, `help-${_name}`);
      const result = await run(
        script,
        // Were any work done, it would fail on this database or create this directory.
        { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DATA_DIR: dataDir },
        ['--help'],
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: ${command}`);
      expect(result.stderr).toBe('');
      expect(existsSync(dataDir)).toBe(false);
    },
  );

  it('migrate --help does not touch the embedded database either', async () => {
    const dataDir = join(scratch, 'migrate-help-embedded');
    const result = await run('src/db/migrate.js', { DATA_DIR: dataDir }, ['--help']);
    expect(result.code).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('an unknown argument is refused with the usage (64), before any work', async () => {
    const result = await run(
      'src/main.js',
      { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      ['--port=9'],
    );
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('unknown argument: --port=9');
    expect(result.stderr).toContain('Usage: npm start');
  });
});

describe('start-up errors: one line, naming what to change', () => {
  it('a busy port is reported first, before the database (which here is unreachable too)', async () => {
    const holder = createServer();
    const port = await listening(holder);
    try {
      const started = Date.now();
      const result = await run('src/main.js', {
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      });
      expect(result.code).toBe(78);
      const line = onlyLogLine(result);
      expect(line.level).toBe(60);
      expect(line.msg).toBe(
        `port ${port} on 127.0.0.1 is already in use: set PORT to a free port, or stop what listens there`,
      );
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      holder.close();
    }
  });

  it('the cluster start checks the port first too', async () => {
    const holder = createServer();
    const port = await listening(holder);
    try {
      const result = await run('src/cluster.js', {
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      });
      expect(result.code).toBe(78);
      expect(onlyLogLine(result).msg).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      holder.close();
    }
  });

  it('an unreachable database is named by its variable and host, never its password', async () => {
    const closed = await freePort();
    const result = await run('src/main.js', {
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      DATABASE_URL: `postgres://someone:hunter2-secret@127.0.0.1:${closed}/meetings`,
    });
    expect(result.code).toBe(69);
    const line = onlyLogLine(result);
    expect(line.msg).toBe(
      `cannot reach the database at 127.0.0.1:${closed} named by DATABASE_URL (ECONNREFUSED)`,
    );
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });

  it('behind a pooler, an unreachable direct URL is named by its own variable', async () => {
    const closed = await freePort();
    const result = await run('src/db/migrate.js', {
      DATABASE_URL: adminUrl(),
      DATABASE_POOLER: 'transaction',
      DATABASE_DIRECT_URL: `postgres://someone:hunter2-secret@127.0.0.1:${closed}/meetings`,
    });
    expect(result.code).toBe(69);
    expect(result.stderr).toBe(
      `cannot reach the database at 127.0.0.1:${closed} named by DATABASE_DIRECT_URL (ECONNREFUSED)\n`,
    );
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });

  it('something else than PostgreSQL on that port is said so', async () => {
    // An HTTP-like server: it answers the start-up message with text and closes.
    const impostor = createServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    });
    const port = await listening(impostor);
    try {
      const result = await run('src/db/migrate.js', {
        DATABASE_URL: `postgres://someone:hunter2-secret@127.0.0.1:${port}/meetings`,
      });
      expect(result.code).toBe(69);
      expect(result.lines).toHaveLength(1);
      expect(result.stderr).toMatch(
        new RegExp(
          `^the server at 127\\.0\\.0\\.1:${port} named by DATABASE_URL does not answer as PostgreSQL \\(.+\\)\\n$`,
        ),
      );
      expect(result.stdout + result.stderr).not.toContain('hunter2');
    } finally {
      impostor.close();
    }
  });

  it('a database that does not exist yet is created, and the log says so', async () => {
    const name = `startup_created_${Date.now().toString(36)}`;
    const url = new URL(adminUrl());
    url.pathname = `/${name}`;
    const result = await run('src/db/migrate.js', { DATABASE_URL: url.href });
    try {
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        `created database "${name}" at ${url.hostname}:${url.port || 5432} (DATABASE_URL)`,
      );
      expect(result.stdout).toContain('applied: ');
    } finally {
      const admin = new Client({ connectionString: adminUrl() });
      await admin.connect();
      await admin.query(`drop database if exists ${admin.escapeIdentifier(name)}`);
      await admin.end();
    }
  });
});
