// @ts-check
'use strict';
/**
 * With TEST_DURATIONS=write (`npm run test:durations`), writes each test file's time in this run
 * to test/durations.json, per project, over what the file held (projects and files this run did
 * not run keep their timings). Otherwise does nothing.
 */
const { fileKey, projectOf, readDurations, writeDurations } = require('./durations.cjs');

class DurationsReporter {
  constructor() {
    this.writing = process.env.TEST_DURATIONS === 'write';
    /** @type {Record<string, Record<string, number>>} project → file → ms */
    this.durations = this.writing ? readDurations() : {};
  }

  /** @param {import('@jest/test-result').Test} test @param {import('@jest/test-result').TestResult} result */
  onTestResult(test, result) {
    if (!this.writing || result.testExecError) {
      return;
    }
    const { start, end } = result.perfStats;
    const project = projectOf(test);
    const files = (this.durations[project] ??= {});
    files[fileKey(test.path)] = Math.round((end - start) / 100) * 100;
  }

  onRunComplete() {
    if (this.writing) {
      writeDurations(this.durations);
    }
  }
}

module.exports = DurationsReporter;
