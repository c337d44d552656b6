import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceNodeFlags } from '../../bench/lib/paths';

const root = join(__dirname, '../..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  config?: unknown;
};
const flags = serviceNodeFlags(root);

/** What `expression` prints in a Node process started with these flags. */
function printed(nodeFlags: readonly string[], expression: string): number {
  const probe = spawnSync(process.execPath, [...nodeFlags, '-p', expression], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] },
  });
  expect(probe.stderr).toBe('');
  expect(probe.status).toBe(0);
  return Number(probe.stdout.trim());
}

/** The young generation's size once short-lived garbage has made it grow to its largest. */
const newSpace = (nodeFlags: readonly string[]): number =>
  printed(
    nodeFlags,
    'let k = []; for (let i = 0; i < 1e7; i++) { k.push({ a: i, b: `x${i}` }); if (k.length > 20000) k = []; } ' +
      "require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size",
  );

/** The heap's limit (bytes). */
const heapLimit = (nodeFlags: readonly string[]): number =>
  printed(nodeFlags, "require('v8').getHeapStatistics().heap_size_limit");

describe("the service's Node flags (package.json nodeFlags)", () => {
  // Node 22's default semi-space is 16 MiB (a 32 MiB young generation), which the flag doubles.
  // Node 24 and 26 size their own (64 MiB here, 128 MiB in one CI run), so there the flag is a
  // bound, not an enlargement. Node 26 grows the young generation later than 24: 3 million short
  // lives left it at 48 MiB, 10 million bring every line to its full size.
  it('are accepted by this Node and give a young generation of two 32 MiB semi-spaces', () => {
    expect(newSpace(flags)).toBe(2 * 32 * 1048576);
  });

  it('bound the old generation at 1 GiB (the default grows with the machine, to 4 GiB)', () => {
    const limit = heapLimit(flags);
    // The limit covers the young generation too: 1 GiB of old space and at most 3 × 32 MiB.
    expect(limit).toBeGreaterThanOrEqual(1024 * 1048576);
    expect(limit).toBeLessThanOrEqual((1024 + 96) * 1048576);
  });

  it('are what npm start, the cluster start, the dev loop and the image run the service with', () => {
    const read = `$(node -p "require('./package.json').nodeFlags")`;
    expect(packageJson.scripts['start']).toBe('npm run build && npm run start:dist');
    expect(packageJson.scripts['start:dist']).toBe(`node ${read} dist/src/main.js`);
    expect(packageJson.scripts['start:cluster']).toContain(`node ${read} dist/src/cluster.js`);
    expect(packageJson.scripts['dev']).toContain(`${read} scripts/dev.cjs`);
    expect(readFileSync(join(root, 'Dockerfile'), 'utf8')).toContain(
      `exec node ${read.replaceAll('"', '\\"')} dist/src/main.js`,
    );
  });

  // Not npm's `config`: npm-run-all2 (npm run check) passes a package's config on to each script
  // as `--<package>:<key>=<value>`, which npm 11 warns of on every run as an unknown CLI config
  // (and npm 12 will refuse).
  it('are not npm config, which npm 11 warns of in every nested run', () => {
    expect(packageJson).not.toHaveProperty('config');
  });
});
