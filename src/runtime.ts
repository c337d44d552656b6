import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { satisfies } from 'semver';

/** The package.json of this service, found upwards from here (src/ in tests, dist/src/ built). */
function packageJsonPath(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      return candidate;
    }
    if (dirname(dir) === dir) {
      throw new Error(`no package.json above ${__dirname}`);
    }
  }
}

/** The Node versions package.json's `engines.node` accepts: the one place that range is written. */
export function supportedNodeRange(): string {
  const manifest = JSON.parse(readFileSync(packageJsonPath(), 'utf8')) as {
    engines: { node: string };
  };
  return manifest.engines.node;
}

/** Why this service cannot run on Node `version`, or null when `engines.node` accepts it. */
export function unsupportedNodeMessage(version: string): string | null {
  const range = supportedNodeRange();
  return satisfies(version, range)
    ? null
    : `Node.js ${version} is not supported: this service needs Node.js ${range} (26 LTS recommended).`;
}
