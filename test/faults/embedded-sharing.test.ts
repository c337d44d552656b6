import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/platform/shared/free-port';
import { testDatabaseKind } from '../helpers/test-database';
import { useEmbeddedFixture } from './support/embedded-fixture';
import { call, register } from './support/load';
import { type ServiceProcess, serviceEnv, startService } from './support/service';

/**
 * One embedded data directory, several processes: `npm run seed`, `npm run migrate` and
 * `npm run admin` join the server of the service running on it (the service keeps answering and
 * sees the rows at once), a second service refuses at once naming the first, and a restart finds
 * every acknowledged write.
 * The cluster start mode runs the server in its primary for its workers. Runs once, in the embedded
 * jest project.
 */

const suite = testDatabaseKind === 'embedded' ? describe : describe.skip;

/** Runs a built command (`node <script> ...args`) to its end; killed after `timeoutMs`. */
function runNode(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 120_000,
): Promise<{ code: number | null; output: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: 'pipe' });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: performance.now() - started });
    });
  });
}

const SEEDED = { email: 'demo@example.com', password: 'password123' };

suite('sharing the embedded database', () => {
  const fixture = useEmbeddedFixture('share');
  const env = () => serviceEnv({ DATA_DIR: fixture.dataDir });
  const script = (path: string) => fixture.script(path);
  const start = (): Promise<ServiceProcess> => fixture.start({}, { startTimeoutMs: 60_000 });

  it('lets seed and migrate join a running service, refuses a second service, and keeps every acknowledged write', async () => {
    const first = await start();

    // Registrations go on through the service while the seed writes.
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i += 1) {
        const reply = await register(first.url, `share${i}`);
        if (reply.status === 201) {
          acknowledged.push((reply.body as { account: string }).account);
        } else {
          failures.push(`${reply.status ?? reply.error} ${JSON.stringify(reply.body)}`);
        }
      }
    })();
    const seed = await runNode(
      script('db/seed/seed.js'),
      ['--users', '300', '--meetings', '30', '--follows-per-user', '3'],
      env(),
    );
    writing = false;
    await writer;
    expect(seed.output).toMatch(/Seeded 30\d users/);
    expect(seed.code).toBe(0);
    expect(failures).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(0);

    // The running service sees the seeded users at once.
    const seeded = await call(first.url, 'POST', '/api/v1/auth/login', { json: SEEDED });
    expect(seeded.status).toBe(200);

    // migrate joins as well, and finds nothing to do.
    const migrate = await runNode(script('db/migrate.js'), [], env());
    expect(migrate.output).toContain('schema is up to date');
    expect(migrate.code).toBe(0);

    // So does `npm run admin -- grant`: the running service sees the new admin at once.
    const grant = await runNode(script('db/admin.js'), ['grant', SEEDED.email], env());
    expect(grant.output).toContain(`admin: ${SEEDED.email} is an admin`);
    expect(grant.code).toBe(0);
    const token = (seeded.body as { access_token: string }).access_token;
    const me = await call(first.url, 'GET', '/api/v1/user/me', { token });
    expect(me.body).toMatchObject({ email: SEEDED.email, roles: 'admin' });
    const nobody = await runNode(script('db/admin.js'), ['grant', 'nobody@example.com'], env());
    expect(nobody.output).toContain('no account has the e-mail address nobody@example.com');
    expect(nobody.code).toBe(1);

    // A second service on the same directory refuses at once, naming the first; the first goes on.
    const second = await runNode(
      fixture.main,
      [],
      { ...env(), HOST: '127.0.0.1', PORT: String(await freePort()) },
      30_000,
    );
    expect(second.output).toContain(`in use by process ${first.pid}`);
    expect(second.code).toBe(1);
    expect((await call(first.url, 'GET', '/health/readiness')).status).toBe(204);

    // A restart on the same directory finds every acknowledged registration and the seed.
    first.signal('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const again = await start();
    // Tokens name their issuer, which has the port: sign in again on the new one.
    const relogin = await call(again.url, 'POST', '/api/v1/auth/login', { json: SEEDED });
    expect(relogin.status).toBe(200);
    const missing: string[] = [];
    for (const account of acknowledged) {
      const found = await call(again.url, 'GET', `/api/v1/user/${account}`, {
        token: (relogin.body as { access_token: string }).access_token,
      });
      if (found.status !== 200) {
        missing.push(`${account}: ${found.status}`);
      }
    }
    console.log(
      `embedded-sharing: ${acknowledged.length} registrations acknowledged during a seed of ` +
        `300 users; second service refused in ${Math.round(second.ms)} ms; ` +
        `${missing.length} missing after a restart`,
    );
    expect(missing).toEqual([]);
  }, 240_000);

  it('serves cluster workers from the server the primary runs, and stops it with them', async () => {
    const clusterDir = mkdtempSync(join(tmpdir(), 'meetings-faults-cluster-'));
    try {
      const primary = await startService(
        script('cluster.js'),
        {
          ...serviceEnv({ DATA_DIR: clusterDir }),
          CLUSTER_WORKERS: '2',
          // Not the cluster's default 9464: another file's cluster may hold it (files run at once).
          METRICS_PORT: String(await freePort()),
        },
        { startTimeoutMs: 60_000 },
      );
      fixture.track(primary);
      const registered = await Promise.all(
        [0, 1, 2, 3].map((i) => register(primary.url, `cluster${i}`)),
      );
      expect(registered.map((reply) => reply.status)).toEqual([201, 201, 201, 201]);
      const lock = JSON.parse(readFileSync(join(clusterDir, 'embedded.lock'), 'utf8')) as {
        pid: number;
      };
      expect(lock.pid).toBe(primary.pid);

      primary.signal('SIGTERM');
      const { code } = await primary.exited;
      // Had it not stopped cleanly, its warnings and errors (level 40 and up) say why.
      const problems = code === 0 ? [] : primary.logs.filter((line) => (line.level ?? 50) >= 40);
      expect({ code, problems }).toEqual({ code: 0, problems: [] });
      // The primary stopped the server and gave the directory up.
      expect(existsSync(join(clusterDir, 'embedded.lock'))).toBe(false);
      expect(existsSync(join(clusterDir, 'postgres', 'postmaster.pid'))).toBe(false);
    } finally {
      rmSync(clusterDir, { recursive: true, force: true });
    }
  }, 120_000);
});
