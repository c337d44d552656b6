// @ts-check
'use strict';
/**
 * Compiles the service (src/ and rest/) to JavaScript with SWC, file by file and without
 * type-checking: type-checking is `npm run typecheck`'s job (npm test and CI run it). SWC keeps
 * what tsc emitted that the service depends on: legacy decorators with their design-type metadata
 * (type-graphql and MikroORM read it) and class fields assigned in the constructor, not defined
 * (tsconfig's useDefineForClassFields: false). Measured here: ~1 s for the whole service against
 * ~40 s for `tsc -b`, so `npm start` answers in seconds on a fresh clone.
 *
 * The browser assets (the GraphiQL bundle, Swagger UI's files) go into <outDir>/assets
 * (scripts/build-assets.cjs), remade only when what they are made from changed.
 *
 * Plain CommonJS, so it runs before anything is compiled. `npm run build` runs it into dist/; the
 * fault tests run it into a private directory (test/faults/support/build.ts).
 */
const { mkdir, readdir, rm, writeFile, cp } = require('node:fs/promises');
const { dirname, join, relative, resolve } = require('node:path');
const { transformFile } = require('@swc/core');
const { buildAssets } = require('./build-assets.cjs');
const { SWC_OPTIONS } = require('./swc-options.cjs');

const ROOT = resolve(__dirname, '..');
/** The folders compiled, as tsconfig.build.json includes them. */
const SOURCES = ['src', 'rest'];
/** Read by the REST facade at start-up, next to the compiled routes. */
const COPIED = ['rest/operations'];

/**
 * Every file under `dir` (recursively), relative to ROOT.
 * @param {string} dir
 * @returns {Promise<string[]>}
 */
async function filesUnder(dir) {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/**
 * Compiles src/ and rest/ into `outDir` (dist/src/..., dist/rest/...), copies the operation
 * documents, and removes compiled files whose source is gone.
 * @param {string} outDir
 * @returns {Promise<number>} the number of files compiled
 */
async function compile(outDir) {
  const sources = (await Promise.all(SOURCES.map(filesUnder)))
    .flat()
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  const expected = new Set();
  await Promise.all(
    sources.map(async (file) => {
      const target = join(outDir, file.replace(/\.ts$/, '.js'));
      const output = await transformFile(join(ROOT, file), {
        ...SWC_OPTIONS,
        filename: file,
        sourceFileName: relative(dirname(target), join(ROOT, file)),
      });
      await mkdir(dirname(target), { recursive: true });
      await writeFile(
        target,
        `${output.code}\n//# sourceMappingURL=${target.split('/').pop()}.map\n`,
      );
      await writeFile(`${target}.map`, output.map ?? '{}');
      expected.add(target).add(`${target}.map`);
    }),
  );
  for (const dir of COPIED) {
    await cp(join(ROOT, dir), join(outDir, dir), { recursive: true });
  }
  // A source deleted or renamed must not leave its old output behind to be required.
  for (const dir of SOURCES) {
    const compiled = await readdir(join(outDir, dir), { recursive: true, withFileTypes: true });
    for (const entry of compiled) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isFile() && /\.js(\.map)?$/.test(entry.name) && !expected.has(path)) {
        await rm(path);
      }
    }
  }
  return sources.length;
}

/**
 * The service and its browser assets, side by side in `outDir`.
 * @param {string} outDir
 */
async function build(outDir) {
  const [compiled, assets] = await Promise.all([
    compile(outDir),
    buildAssets(join(outDir, 'assets')),
  ]);
  return { compiled, assets };
}

module.exports = { build, ROOT };

if (require.main === module) {
  const started = process.hrtime.bigint();
  const outDir = resolve(ROOT, process.argv[2] ?? 'dist');
  build(outDir).then(
    ({ compiled, assets }) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      console.log(
        `compiled ${compiled} files into ${relative(ROOT, outDir) || '.'}, GraphiQL ${assets.graphiql}, ` +
          `Swagger UI ${assets.swaggerUi}, in ${ms.toFixed(0)} ms`,
      );
    },
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
