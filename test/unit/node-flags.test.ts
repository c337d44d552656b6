import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceNodeFlags } from '../../bench/lib/paths';

const root = join(__dirname, '../..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const flags = serviceNodeFlags(root);

/**
 * The young generation's size (MiB) of a Node process started with these flags, once short-lived
 * garbage has made it grow to its largest.
 */
function newSpaceMiB(nodeFlags: readonly string[]): number {
  const probe = spawnSync(
    process.execPath,
    [
      ...nodeFlags,
      '-p',
      'let k = []; for (let i = 0; i < 3e6; i++) { k.push({ a: i, b: `x${i}` }); if (k.length > 20000) k = []; } ' +
        "require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size",
    ],
    { encoding: 'utf8', env: { PATH: process.env['PATH'] } },
  );
  expect(probe.stderr).toBe('');
  expect(probe.status).toBe(0);
  return Number(probe.stdout.trim()) / 1048576;
}

describe("the service's Node flags (package.json config.nodeFlags)", () => {
  it('are accepted by this Node and give a larger young generation than the default', () => {
    expect(newSpaceMiB(flags)).toBeGreaterThan(newSpaceMiB([]));
  });

  it('are what npm start and the cluster start run the service with', () => {
    expect(packageJson.scripts['start']).toContain('node $npm_package_config_nodeFlags dist/src/');
    expect(packageJson.scripts['start:cluster']).toContain(
      'node $npm_package_config_nodeFlags dist/src/',
    );
    expect(readFileSync(join(root, 'Dockerfile'), 'utf8')).toContain(
      `exec node $(node -p \\"require('./package.json').config.nodeFlags\\") dist/src/main.js`,
    );
  });
});
