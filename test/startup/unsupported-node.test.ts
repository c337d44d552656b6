import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { satisfies } from 'semver';
import { ROOT } from '../faults/support/build';
import { supportedNodeRange } from '../../src/runtime';
import { testDatabaseKind } from '../helpers/test-database';

/** The machine's own Node (these machines carry Node 20 as /usr/bin/node), when it is unsupported. */
function unsupportedNode(): { path: string; version: string } | null {
  const path = '/usr/bin/node';
  if (!existsSync(path)) {
    return null;
  }
  const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
  return satisfies(version, supportedNodeRange()) ? null : { path, version };
}

const old = unsupportedNode();

/**
 * On a Node outside engines.node, `npm ci` refuses before it installs anything, with npm's one
 * EBADENGINE error naming the range (.npmrc: engine-strict). Once per run (the embedded project).
 */
(testDatabaseKind === 'embedded' && old ? describe : describe.skip)(
  `npm ci on an unsupported Node (${old?.version ?? 'none on this machine'})`,
  () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'meetings-old-node-'));
      for (const file of ['package.json', 'package-lock.json', '.npmrc']) {
        cpSync(join(ROOT, file), join(dir, file));
      }
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('refuses before installing anything, with EBADENGINE naming the supported range', () => {
      const { path, version } = old as { path: string; version: string };
      // npm runs on the Node found first on PATH: the unsupported one.
      const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${join(path, '..')}:${process.env['PATH'] ?? ''}` },
      });
      expect(npm.status).not.toBe(0);
      expect(npm.stderr).toContain('EBADENGINE');
      expect(npm.stderr).toContain(supportedNodeRange());
      expect(npm.stderr).toContain(version);
      expect(existsSync(join(dir, 'node_modules'))).toBe(false);
    });
  },
);
