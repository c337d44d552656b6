// @ts-check
'use strict';
/**
 * jest's own order (a file that failed last time first, then the slowest first, by the timings
 * jest keeps of this machine's runs), with test/durations.json's timings for files jest has none
 * of, as on a fresh clone, where jest would otherwise go by file size: the long files, many of
 * them waiting on timers and child processes rather than on a core, start first, and the run does
 * not end on one of them alone.
 */
const { default: Sequencer } = require('@jest/test-sequencer');
const { fileKey, projectOf, readDurations } = require('./durations.cjs');

class SlowestFirstSequencer extends Sequencer {
  /** @param {ConstructorParameters<typeof Sequencer>} args */
  constructor(...args) {
    super(...args);
    this.hints = readDurations();
  }

  /** @param {import('@jest/test-result').Test} test */
  time(test) {
    return super.time(test) ?? this.hints[projectOf(test)]?.[fileKey(test.path)];
  }
}

module.exports = SlowestFirstSequencer;
