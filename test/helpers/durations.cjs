// @ts-check
'use strict';
/**
 * How long each test file took in a whole run, per jest project (test/durations.json, written by
 * `npm run test:durations`): the order of a run on a fresh clone, which has no timings of its own
 * yet. A hint only: a file missing from it, or slower now, runs all the same.
 */
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '../..');
const FILE = join(ROOT, 'test/durations.json');

/** @typedef {Record<string, Record<string, number>>} Durations project → file → ms */

/** @param {{ context: { config: import('@jest/types').Config.ProjectConfig } }} test */
function projectOf(test) {
  const { displayName } = test.context.config;
  return (typeof displayName === 'object' ? displayName?.name : displayName) || 'default';
}

/** @param {string} path an absolute test file path */
const fileKey = (path) => relative(ROOT, path);

/** @returns {Durations} */
function readDurations() {
  return existsSync(FILE) ? JSON.parse(readFileSync(FILE, 'utf8')) : {};
}

/** @param {Durations} durations */
function writeDurations(durations) {
  /** @type {Durations} */
  const sorted = {};
  for (const project of Object.keys(durations).sort()) {
    const files = durations[project] ?? {};
    sorted[project] = Object.fromEntries(
      Object.keys(files)
        .sort()
        .map((file) => [file, files[file] ?? 0]),
    );
  }
  writeFileSync(FILE, `${JSON.stringify(sorted, null, 2)}\n`);
}

module.exports = { projectOf, fileKey, readDurations, writeDurations, FILE };
