// @ts-check
'use strict';
/**
 * `npm run dev`: compiles the service (scripts/build.cjs, about half a second) and starts it.
 * `node --watch-path=src --watch-path=rest` runs this file and starts it again on every change
 * under those folders, after the running service has shut down gracefully (SIGTERM). The browser
 * assets are not made again on a reload: their stamp still matches (scripts/build-assets.cjs), so
 * only a change of ide/ or of the lockfile bundles GraphiQL again, at the next start or reload.
 */
const { enableCompileCache } = require('node:module');
const { resolve } = require('node:path');
const { build } = require('./build.cjs');

// V8's compiled code of every module loaded after this point is kept on disk and reused by the
// next start: loading the service's modules took 1.3 s without it and 0.8-1.2 s with it, most of a
// restart here. Only here: in A/B runs of the bench the cached build was as fast or up to ~10%
// slower on writes (never clearly outside the noise), so `npm start` does without it.
enableCompileCache();

build(resolve(__dirname, '../dist')).then(
  () => require('../dist/src/main.js'),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
