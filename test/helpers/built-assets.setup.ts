import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/**
 * Jest global set-up of every run: the service under test serves the browser assets from the
 * repository's dist/assets (src/platform/http/built-assets.ts), so they are brought up to date
 * first, as `npm run build` does. Only hashes their inputs when they are current (well under a
 * second); bundles GraphiQL when they are not (seconds, once).
 */
// Jest takes the set-up as the module's default export.
// eslint-disable-next-line no-restricted-syntax
export default function setup(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-assets.cjs')], { stdio: 'pipe' });
}
