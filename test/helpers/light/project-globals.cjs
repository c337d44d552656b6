// @ts-check
'use strict';
/**
 * A test thread serves one project: its `globals` (which database, which pooler) become globals
 * of the thread, as jest's own runner makes them globals of each file.
 */
const { isMainThread, workerData } = require('node:worker_threads');

if (isMainThread) {
  // jest-light-runner runs the files in jest's own thread with one worker (`-i`, `--runInBand`,
  // `--maxWorkers=1`), where the projects would share one set of globals.
  throw new Error('the tests run in worker threads: use --maxWorkers=2 or more, not --runInBand');
}
// Tinypool hands a worker [its own data, the runner's]; the runner's names the project.
Object.assign(globalThis, workerData[1].projectConfig.globals);
