// @ts-check
'use strict';
/**
 * The order of `npm run test:quick`: first the test files that the working tree's uncommitted
 * changes touch (a changed test, or a test that imports a changed file, however indirectly, as
 * `jest --onlyChanged` finds them), then every other file in jest's own order (failed last time
 * first, then the slowest first). A failure in what you just changed shows within seconds, and
 * the run still goes on to the whole project.
 */
const { default: Sequencer } = require('@jest/test-sequencer');
const { getChangedFilesForRoots } = require('jest-changed-files');
const { DependencyResolver } = require('jest-resolve-dependencies');
const { buildSnapshotResolver } = require('jest-snapshot');

class ChangedFirstSequencer extends Sequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  async sort(tests) {
    const ordered = await super.sort(tests);
    const first = new Set();
    for (const context of new Set(tests.map((test) => test.context))) {
      const { changedFiles } = await getChangedFilesForRoots(context.config.roots, {});
      if (changedFiles.size === 0) {
        continue;
      }
      const resolver = new DependencyResolver(
        context.resolver,
        context.hasteFS,
        await buildSnapshotResolver(context.config),
      );
      const paths = new Set(tests.filter((test) => test.context === context).map((t) => t.path));
      for (const path of resolver.resolveInverse(changedFiles, (file) => paths.has(file))) {
        first.add(path);
      }
    }
    return [
      ...ordered.filter((test) => first.has(test.path)),
      ...ordered.filter((test) => !first.has(test.path)),
    ];
  }
}

module.exports = ChangedFirstSequencer;
