import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/** The repository root (this file is test/faults/support/build.ts). */
export const ROOT = resolve(__dirname, '../../..');

/** A runnable copy of the service, compiled from the current sources, and its removal. */
export interface ServiceBuild {
  /** The entry point to run with `node` (the equivalent of dist/src/main.js). */
  main: string;
  remove(): void;
}

/**
 * Compiles the service (everything `npm run build` compiles) into a private temporary directory,
 * file by file without type-checking (as the jest transform does), so a fault test always runs the
 * sources it sits next to — never a stale dist/ — and never races other builds writing dist/.
 * Takes a few seconds, against half a minute for a full `tsc`.
 */
export function buildService(): ServiceBuild {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!parsed) {
    throw new Error('cannot read tsconfig.build.json');
  }
  const compilerOptions: ts.CompilerOptions = {
    ...parsed.options,
    isolatedModules: true,
    sourceMap: false,
    inlineSourceMap: false,
    declaration: false,
    noEmit: false,
  };
  const outDir = mkdtempSync(join(tmpdir(), 'meetings-faults-build-'));
  try {
    for (const file of parsed.fileNames) {
      if (file.endsWith('.d.ts')) {
        continue;
      }
      const output = ts.transpileModule(readFileSync(file, 'utf8'), {
        compilerOptions,
        fileName: file,
        reportDiagnostics: false,
      });
      const target = join(outDir, relative(ROOT, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, output.outputText);
    }
    cpSync(join(ROOT, 'rest/operations'), join(outDir, 'rest/operations'), { recursive: true });
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
