// @ts-check
'use strict';
/**
 * The browser assets the service serves from its own origin, made at build time from
 * devDependencies, so that none of the browser code is a production dependency:
 *
 * - `assets/graphiql/`: the IDE page's script (ide/graphiql/main.tsx: GraphiQL 5, React 19, the
 *   Explorer plugin, the graphql-ws client, Monaco) bundled by esbuild into graphiql.js and
 *   graphiql.css (plus the fonts they use), and Monaco's three web workers (editor, JSON, GraphQL)
 *   as separate files, which the page starts from this origin (ide/graphiql/monaco-workers.ts).
 * - `assets/swagger-ui/`: the files of swagger-ui-dist the REST docs page loads (rest/docs.ts).
 *
 * Bundling the IDE takes seconds, so it runs only when its inputs change: their hash (the
 * lockfile, ide/, this file) is the bundle's stamp. A bundle is made once per stamp into
 * node_modules/.cache/meeting-ide/ and placed into each output directory by hard links (dist/,
 * the fault tests' private builds); an output whose stamp matches is left alone, so `npm run
 * build`, `npm start` and every reload of `npm run dev` only hash the inputs (a few ms).
 */
const { createHash } = require('node:crypto');
const {
  copyFile,
  link,
  mkdir,
  readFile,
  readdir,
  rename,
  rm,
  stat,
  writeFile,
} = require('node:fs/promises');
const { dirname, join, relative, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..');
/** The IDE's sources (its own tsconfig: browser code, never compiled by SWC). */
const IDE_SOURCES = join(ROOT, 'ide');
const IDE_CACHE = join(ROOT, 'node_modules/.cache/meeting-ide');
/** The file in an output directory that names what it was made from. */
const STAMP_FILE = 'stamp';
/** Bundles kept in the cache besides the current one (switching branches back is then free). */
const CACHE_KEEPS = 3;
/** What the docs page loads from swagger-ui-dist, with the licence texts that go with them. */
const SWAGGER_FILES = [
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.LICENSE.txt',
  'swagger-ui.css',
  'favicon-16x16.png',
  'favicon-32x32.png',
  'LICENSE',
  'NOTICE',
];

/**
 * The contents of `file`, or null when it does not exist.
 * @param {string} file
 * @returns {Promise<string | null>}
 */
const readIfThere = (file) =>
  readFile(file, 'utf8').catch((/** @type {NodeJS.ErrnoException} */ error) => {
    if (error.code === 'ENOENT') {
      return null;
    }
    throw error;
  });

/**
 * The hash of everything the IDE bundle is made from.
 * @returns {Promise<string>}
 */
async function ideStamp() {
  const hash = createHash('sha256');
  const sources = (await readdir(IDE_SOURCES, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of [__filename, join(ROOT, 'package-lock.json'), ...sources]) {
    hash
      .update(`${relative(ROOT, file)}\0`)
      .update(await readFile(file))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * A module path as the IDE's packages resolve it (Monaco comes with @graphiql/react).
 * @param {string} request
 */
const fromGraphiql = (request) =>
  require.resolve(request, { paths: [dirname(require.resolve('@graphiql/react/package.json'))] });

/**
 * Bundles the IDE into `outDir` with esbuild: the page's module and Monaco's classic workers.
 * @param {string} outDir
 */
async function bundleIde(outDir) {
  const esbuild = require('esbuild');
  /** @type {import('esbuild').BuildOptions} */
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    target: 'es2022',
    outdir: outDir,
    define: { 'process.env.NODE_ENV': '"production"' },
    // The licence comments of the bundled packages go to <name>.LEGAL.txt beside each bundle.
    legalComments: 'external',
    logLevel: 'warning',
  };
  await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: { graphiql: join(IDE_SOURCES, 'graphiql/main.tsx') },
      // A module script: its workers are found from import.meta.url, beside it.
      format: 'esm',
      jsx: 'automatic',
      loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file', '.png': 'file' },
      assetNames: '[name]-[hash]',
      // framer-motion's optional peer, required inside a try: without it, it does without.
      external: ['@emotion/is-prop-valid'],
    }),
    esbuild.build({
      ...common,
      entryPoints: {
        'editor.worker': fromGraphiql('monaco-editor/esm/vs/editor/editor.worker.js'),
        'json.worker': fromGraphiql('monaco-editor/esm/vs/language/json/json.worker.js'),
        'graphql.worker': fromGraphiql('monaco-graphql/esm/graphql.worker.js'),
      },
      format: 'iife',
    }),
  ]);
}

/**
 * Writes `dir` whole or not at all: made in a sibling directory by `fill`, stamped, then swapped
 * in, so a running service or a concurrent build never sees half of it.
 * @param {string} dir
 * @param {string} stamp
 * @param {(staging: string) => Promise<void>} fill
 */
async function replaceDirectory(dir, stamp, fill) {
  const staging = `${dir}.${process.pid}.new`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  try {
    await fill(staging);
    await writeFile(join(staging, STAMP_FILE), stamp);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Links (or, across file systems, copies) every file of `from` into `to`.
 * @param {string} from
 * @param {string} to
 */
async function linkFiles(from, to) {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (entry.isFile() && entry.name !== STAMP_FILE) {
      await link(join(from, entry.name), join(to, entry.name)).catch(() =>
        copyFile(join(from, entry.name), join(to, entry.name)),
      );
    }
  }
}

/** Removes cached bundles beyond the newest CACHE_KEEPS besides `current`. */
async function pruneCache(/** @type {string} */ current) {
  const entries = await readdir(IDE_CACHE, { withFileTypes: true });
  const others = await Promise.all(
    entries
      .filter(
        (entry) => entry.isDirectory() && entry.name !== current && !entry.name.endsWith('.new'),
      )
      .map(async (entry) => ({
        dir: join(IDE_CACHE, entry.name),
        time: (await stat(join(IDE_CACHE, entry.name))).mtimeMs,
      })),
  );
  others.sort((a, b) => b.time - a.time);
  await Promise.all(
    others.slice(CACHE_KEEPS).map(({ dir }) => rm(dir, { recursive: true, force: true })),
  );
}

/**
 * Makes `<outDir>/graphiql` current: nothing when its stamp matches, the cached bundle of these
 * inputs when there is one, a new bundle otherwise.
 * @param {string} outDir
 * @returns {Promise<'current' | 'linked' | 'bundled'>}
 */
async function buildIde(outDir) {
  const stamp = await ideStamp();
  const target = join(outDir, 'graphiql');
  if ((await readIfThere(join(target, STAMP_FILE))) === stamp) {
    return 'current';
  }
  const cached = join(IDE_CACHE, stamp);
  const bundled = (await readIfThere(join(cached, STAMP_FILE))) !== stamp;
  if (bundled) {
    await replaceDirectory(cached, stamp, bundleIde);
    await pruneCache(stamp);
  }
  await replaceDirectory(target, stamp, (staging) => linkFiles(cached, staging));
  return bundled ? 'bundled' : 'linked';
}

/**
 * Makes `<outDir>/swagger-ui` current: the files of the installed swagger-ui-dist.
 * @param {string} outDir
 * @returns {Promise<'current' | 'copied'>}
 */
async function buildSwaggerUi(outDir) {
  const manifest = require.resolve('swagger-ui-dist/package.json');
  const { version } = JSON.parse(await readFile(manifest, 'utf8'));
  const stamp = `swagger-ui-dist@${version}: ${SWAGGER_FILES.join(' ')}`;
  const target = join(outDir, 'swagger-ui');
  if ((await readIfThere(join(target, STAMP_FILE))) === stamp) {
    return 'current';
  }
  await replaceDirectory(target, stamp, async (staging) => {
    for (const file of SWAGGER_FILES) {
      await copyFile(join(dirname(manifest), file), join(staging, file));
    }
  });
  return 'copied';
}

/**
 * Makes `outDir` (dist/assets for `npm run build`) hold current browser assets.
 * @param {string} outDir
 * @returns {Promise<{ graphiql: string, swaggerUi: string }>} what was done to each
 */
async function buildAssets(outDir) {
  const [graphiql, swaggerUi] = await Promise.all([buildIde(outDir), buildSwaggerUi(outDir)]);
  return { graphiql, swaggerUi };
}

module.exports = { buildAssets, ideStamp };

if (require.main === module) {
  const started = process.hrtime.bigint();
  const outDir = resolve(ROOT, process.argv[2] ?? 'dist/assets');
  buildAssets(outDir).then(
    (done) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      console.log(
        `assets in ${relative(ROOT, outDir)}: GraphiQL ${done.graphiql}, Swagger UI ${done.swaggerUi} (${ms.toFixed(0)} ms)`,
      );
    },
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
