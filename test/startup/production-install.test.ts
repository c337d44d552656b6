import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../faults/support/build';
import { startServiceProcess } from '../helpers/service-process';
import { testDatabaseKind } from '../helpers/test-database';

const npm = (cwd: string, args: string[]): string =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: 'pipe', env: process.env });

/**
 * The production install, as the Docker image makes it: `dist/` built beside a tree installed
 * with `npm ci --omit=dev`, started by `npm run start:dist`, with no compiler, no test tool and
 * no browser package there. Once per run (the embedded project): it installs from npm's cache.
 */
(testDatabaseKind === 'embedded' ? describe : describe.skip)('a production install', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'meetings-production-'));
    for (const file of ['package.json', 'package-lock.json', '.npmrc', 'schema']) {
      cpSync(join(ROOT, file), join(dir, file), { recursive: true });
    }
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.cjs'), join(dir, 'dist')], {
      stdio: 'pipe',
    });
    npm(dir, ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund']);
  }, 240_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has no development dependency installed', () => {
    for (const tool of ['@swc/core', 'typescript', 'jest', 'esbuild', 'graphiql']) {
      expect(existsSync(join(dir, 'node_modules', tool))).toBe(false);
    }
  });

  it('starts the built service with npm run start:dist, serves a request and stops cleanly', async () => {
    const lines: string[] = [];
    const service = await startServiceProcess({
      script: 'dist/src/main.js',
      command: ['npm', 'run', 'start:dist', '--silent'],
      cwd: dir,
      env: {
        PATH: process.env['PATH'],
        NODE_ENV: 'production',
        DATA_DIR: join(dir, 'data'),
        JWT_SECRET: 'production-install-test-secret-0123456789',
        LOG_FORMAT: 'json',
      },
      ready: { path: '/health/readiness', withinMs: 60_000, everyMs: 250 },
      onLine: (line) => lines.push(line),
    });
    try {
      const home = await fetch(`${service.url}/api/v1/openapi.json`);
      expect(home.status).toBe(200);
      const registered = await fetch(`${service.url}/api/v1/auth/register`, {
        method: 'POST',
        body: new URLSearchParams({
          name: 'Production Check',
          account: 'production',
          email: 'production@example.com',
          password: 'production-password',
          password_confirm: 'production-password',
        }),
      });
      expect(registered.ok).toBe(true);
      expect(await registered.json()).toMatchObject({ account: 'production' });
    } finally {
      // npm's exit reports the signal (SIGTERM reaches npm and the service, as a Ctrl-C would).
      await service.stop();
    }
    const messages = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ msg: 'shutting down' }),
        expect.objectContaining({ msg: 'stopped' }),
      ]),
    );
  }, 120_000);
});
