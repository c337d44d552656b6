// @ts-check
'use strict';
/**
 * jest-light-runner's `jest.useFakeTimers()` drops its argument and fakes every timer API, so a
 * test that fakes the clock alone (`doNotFake`) stalls its own I/O. These take the argument as
 * jest's own runner does (`@jest/fake-timers`, the same implementation).
 */
const { ModernFakeTimers } = require('@jest/fake-timers');

const timers = new ModernFakeTimers({ config: { fakeTimers: {} }, global: globalThis });
const jestObject = /** @type {Record<string, Function>} */ (
  /** @type {Record<string, unknown>} */ (globalThis)['jest']
);

Object.assign(jestObject, {
  useFakeTimers(/** @type {import('@jest/types').Config.FakeTimersConfig} */ config) {
    timers.useFakeTimers(config);
    return jestObject;
  },
  useRealTimers() {
    timers.useRealTimers();
    return jestObject;
  },
  setSystemTime(/** @type {number | Date} */ now) {
    timers.setSystemTime(now);
    return jestObject;
  },
  advanceTimersByTime(/** @type {number} */ ms) {
    timers.advanceTimersByTime(ms);
    return jestObject;
  },
});
