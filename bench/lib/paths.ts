import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root (this file runs as dist/bench/lib/paths.js). */
export const ROOT = resolve(__dirname, '../../..');

/** Where the harnesses write their reports. */
export const RESULTS = join(ROOT, 'bench', 'results');

/**
 * The Node flags the service runs with in production (package.json `nodeFlags`, which
 * `npm start` and the Docker image read too): every harness starts it the same way. `root` is the
 * repository's (tests run this file from its source, not from dist/).
 */
export function serviceNodeFlags(root = ROOT): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    nodeFlags?: string;
    // Where builds before 2026-12-08 kept them (an A/B run may start one).
    config?: { nodeFlags?: string };
  };
  return (pkg.nodeFlags ?? pkg.config?.nodeFlags ?? '').split(' ').filter(Boolean);
}
