// @ts-check
'use strict';
/**
 * Prints, at the end of a run, the tests of each jest project by outcome, so that two runs can be
 * compared project by project (jest's own summary adds the projects up).
 */
class ProjectSummaryReporter {
  /** @param {unknown} _globalConfig @param {unknown} _options @param {{ [k: string]: unknown }} [_context] */
  constructor(_globalConfig, _options, _context) {
    /** @type {Map<string, { passed: number, failed: number, skipped: number, files: number }>} */
    this.projects = new Map();
  }

  /** @param {import('@jest/test-result').Test} test @param {import('@jest/test-result').TestResult} result */
  onTestResult(test, result) {
    const displayName = test.context.config.displayName;
    const name = (typeof displayName === 'object' ? displayName?.name : displayName) || 'default';
    const counts = this.projects.get(name) ?? { passed: 0, failed: 0, skipped: 0, files: 0 };
    counts.passed += result.numPassingTests;
    counts.failed += result.numFailingTests;
    counts.skipped += result.numPendingTests + result.numTodoTests;
    counts.files += 1;
    this.projects.set(name, counts);
  }

  onRunComplete() {
    for (const [name, { passed, failed, skipped, files }] of this.projects) {
      process.stderr.write(
        `project ${name}: ${files} files, tests ${passed} passed / ${failed} failed / ${skipped} skipped\n`,
      );
    }
  }
}

module.exports = ProjectSummaryReporter;
