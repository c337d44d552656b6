// @ts-check
'use strict';
/**
 * `npm run dev`: compiles the service (scripts/build.cjs, about half a second) and starts it.
 * `node --watch-path=src --watch-path=rest` runs this file and starts it again on every change
 * under those folders, after the running service has shut down gracefully (SIGTERM).
 */
const { resolve } = require('node:path');
const { build } = require('./build.cjs');

build(resolve(__dirname, '../dist')).then(
  () => require('../dist/src/main.js'),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
