import { join, resolve } from 'node:path';

/** The repository root (this file runs as dist/bench/lib/paths.js). */
export const ROOT = resolve(__dirname, '../../..');

/** Where the harnesses write their reports. */
export const RESULTS = join(ROOT, 'bench', 'results');
