// @ts-check
'use strict';
/**
 * jest-light-runner calls tests and hooks without a time limit. Jest's runner fails one that runs
 * longer than its own timeout (the third argument) or the configuration's `testTimeout`; this
 * wraps the globals so that a test thread does the same, rather than hang the run.
 */
const { setTimeout, clearTimeout } = require('node:timers');
const { workerData } = require('node:worker_threads');

/** @type {number} */
const DEFAULT_TIMEOUT = workerData[1].globalConfig.testTimeout;

/**
 * `fn` failing after `ms`, whether it returns a promise or takes a `done` callback. The runner
 * calls a test or a hook with no argument it should see (`promise.then(fn)`), a row of `each`
 * with the row's values: `rows` says which.
 * @param {Function} fn
 * @param {number | undefined} ms
 * @param {string} what
 * @param {boolean} [rows]
 */
function limited(fn, ms, what, rows = false) {
  const limit = ms ?? DEFAULT_TIMEOUT;
  /** @param {unknown[]} args */
  const call = (args) =>
    fn.length > args.length
      ? new Promise((resolve, reject) => {
          fn(...args, (/** @type {unknown} */ error) =>
            error ? reject(error) : resolve(undefined),
          );
        })
      : Promise.resolve().then(() => fn(...args));
  return (/** @type {unknown[]} */ ...given) => {
    const args = rows ? given : [];
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const expired = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Exceeded timeout of ${limit} ms for ${what}.`)),
        limit,
      );
    });
    return Promise.race([call(args), expired]).finally(() => clearTimeout(timer));
  };
}

/**
 * @param {any} test jest-circus's `it` or `test`
 */
function limitTest(test) {
  /** @type {any} */
  const wrapped = (
    /** @type {string} */ name,
    /** @type {Function} */ fn,
    /** @type {number} */ ms,
  ) => test(name, fn && limited(fn, ms, 'a test'), ms);
  Object.assign(wrapped, test);
  wrapped.only = (
    /** @type {string} */ name,
    /** @type {Function} */ fn,
    /** @type {number} */ ms,
  ) => test.only(name, fn && limited(fn, ms, 'a test'), ms);
  wrapped.each =
    (/** @type {unknown[]} */ ...table) =>
    (/** @type {string} */ name, /** @type {Function} */ fn, /** @type {number} */ ms) =>
      test.each(...table)(name, limited(fn, ms, 'a test', true), ms);
  return wrapped;
}

const scope = /** @type {Record<string, any>} */ (globalThis);
scope['it'] = limitTest(scope['it']);
scope['test'] = limitTest(scope['test']);
for (const hook of ['beforeAll', 'afterAll', 'beforeEach', 'afterEach']) {
  const original = scope[hook];
  scope[hook] = (/** @type {Function} */ fn, /** @type {number} */ ms) =>
    original(limited(fn, ms, `a hook (${hook})`), ms);
}
