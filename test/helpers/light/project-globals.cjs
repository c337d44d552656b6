// @ts-check
'use strict';
/**
 * A test thread serves one project: its `globals` (which database, which pooler) become globals
 * of the thread, as jest's own runner makes them globals of each file.
 */
const { workerData } = require('node:worker_threads');

// Tinypool hands a worker [its own data, the runner's]; the runner's names the project.
Object.assign(globalThis, workerData[1].projectConfig.globals);
