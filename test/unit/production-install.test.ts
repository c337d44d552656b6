import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockedPackage {
  version?: string;
  dev?: boolean;
  devOptional?: boolean;
}

const lock = JSON.parse(readFileSync(join(__dirname, '../../package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};

describe('the production install (npm ci --omit=dev)', () => {
  it('holds no dev tool: no locked package is devOptional', () => {
    // npm marks a package devOptional when it is a dev dependency and also an optional
    // (peer) dependency of a production one; `--omit=dev` then installs it (npm/cli#6282),
    // as it did TypeScript (23 MB) through graphile-worker's cosmiconfig 8 (see docs/operations.md).
    const kept = Object.entries(lock.packages)
      .filter(([, entry]) => entry.devOptional === true)
      .map(([path]) => path);
    expect(kept).toEqual([]);
  });

  it('leaves TypeScript out: it is a dev dependency only', () => {
    expect(lock.packages['node_modules/typescript']).toMatchObject({ dev: true });
  });
});
