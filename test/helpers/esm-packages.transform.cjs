// @ts-check
'use strict';
/**
 * A jest transform for packages that ship ES modules only (MikroORM 7, Kysely). On Node 24.9+
 * jest loads them as ES modules, as Node loads them for the compiled service (require(esm)):
 * they pass unchanged. On older Node (CI's smoke test on Node 22) jest `require`s them as
 * CommonJS, so they are compiled to CommonJS with SWC (which also rewrites `import.meta.resolve`
 * and `import.meta.url` into their CommonJS forms).
 */
const { transformSync } = require('@swc/core');

/** @type {import('@jest/transform').SyncTransformer} */
module.exports = {
  process(source, filename, options) {
    if (options.supportsStaticESM) {
      return { code: source };
    }
    const { code, map } = transformSync(source, {
      filename,
      jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022', keepClassNames: true },
      module: { type: 'commonjs', strictMode: true },
      sourceMaps: true,
      swcrc: false,
      configFile: false,
    });
    return { code, map: map ?? null };
  },
};
