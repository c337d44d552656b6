// @ts-check
'use strict';
/**
 * Compiles the TypeScript a test thread loads with SWC, as the build compiles the service
 * (scripts/swc-options.cjs), through Node's own module hooks: test files, helpers and the service
 * are then loaded by Node's module loader once per thread, not once per file by jest's.
 */
const { existsSync, readFileSync } = require('node:fs');
const { registerHooks } = require('node:module');
const { fileURLToPath, pathToFileURL } = require('node:url');
const { transformSync } = require('@swc/core');
const { SWC_OPTIONS } = require('../../../scripts/swc-options.cjs');

const TYPESCRIPT = /\.ts$/;
/** How a relative import without an extension names a TypeScript file. */
const CANDIDATES = ['.ts', '/index.ts'];

// Stack traces point into the TypeScript (the compiled code carries its source map inline).
process.setSourceMapsEnabled(true);

registerHooks({
  resolve(specifier, context, nextResolve) {
    // Relative or absolute paths without an extension: a TypeScript file first.
    if (/^[./]/.test(specifier) && !/\.[cm]?[jt]s$|\.json$/.test(specifier)) {
      const base = specifier.startsWith('/') ? pathToFileURL(specifier).href : specifier;
      for (const suffix of CANDIDATES) {
        const url = new URL(base + suffix, context.parentURL);
        if (existsSync(url)) {
          return { url: url.href, format: 'commonjs', shortCircuit: true };
        }
      }
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    const path = url.startsWith('file:') ? fileURLToPath(url.replace(/\?.*$/, '')) : null;
    if (!path || !TYPESCRIPT.test(path)) {
      return nextLoad(url, context);
    }
    if (url.includes('?')) {
      // The runner imports a test file (a query makes each import new): it is required instead,
      // so that it and all it loads are CommonJS, as the build makes them (Node 22's import of
      // CommonJS does not resolve that module's own requires through these hooks). This stand-in
      // holds the file's place in the require cache: it leaves it before requiring the file.
      const file = JSON.stringify(path);
      const source = `const load = require('node:module').createRequire(${file});
        delete load.cache[${file}];
        load(${file});`;
      return { format: 'commonjs', source, shortCircuit: true };
    }
    const { code } = transformSync(readFileSync(path, 'utf8'), {
      ...SWC_OPTIONS,
      filename: path,
      sourceMaps: 'inline',
    });
    return { format: 'commonjs', source: code, shortCircuit: true };
  },
});
