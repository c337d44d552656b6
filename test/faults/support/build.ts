import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root (this file is test/faults/support/build.ts). */
export const ROOT = resolve(__dirname, '../../..');

/** A runnable copy of the service, compiled from the current sources, and its removal. */
export interface ServiceBuild {
  /** The entry point to run with `node` (the equivalent of dist/src/main.js). */
  main: string;
  remove(): void;
}

/**
 * Compiles the service with `npm run build`'s own compiler (scripts/build.cjs) into a private
 * temporary directory, so a fault test always runs the sources it sits next to — never a stale
 * dist/ — and never races other builds writing dist/. Takes about a second.
 */
export function buildService(): ServiceBuild {
  const outDir = mkdtempSync(join(tmpdir(), 'meetings-faults-build-'));
  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.cjs'), outDir], { stdio: 'pipe' });
    // Resolve packages from the repository, as dist/ does; the project's own package.json, which
    // the service reads (engines.node, the supported runtimes).
    symlinkSync(join(ROOT, 'node_modules'), join(outDir, 'node_modules'), 'dir');
    cpSync(join(ROOT, 'package.json'), join(outDir, 'package.json'));
  } catch (error) {
    rmSync(outDir, { recursive: true, force: true });
    throw error;
  }
  return {
    main: join(outDir, 'src/main.js'),
    remove: () => rmSync(outDir, { recursive: true, force: true }),
  };
}
