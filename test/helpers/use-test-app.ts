import { RestClient } from './rest-client';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app';

/** A test app started for the enclosing block, read lazily: in its tests and hooks. */
export interface UsedTestApp extends TestApp {
  /** A REST client of the app (its URL read at each request). */
  readonly rest: RestClient;
  /**
   * Runs `end` before the app closes (the last first): for what must end while the app and its
   * database are still there, such as a client of the database, which its drop would cut off.
   * jest runs a block's afterAll hooks in the order they were registered, so one registered
   * after useTestApp's would run after the app has closed.
   */
  beforeClose(end: () => Promise<void> | void): void;
}

/**
 * The set-up every suite repeats: registers a `beforeAll` that starts the service (startTestApp:
 * the production wiring on a fresh database) and an `afterAll` that closes it and drops its
 * database. Answers handles that read the started app when used, so they can be named at the top
 * of a `describe` and used in its hooks and tests; the block's own `beforeAll`s (seeding) run after
 * the start, as jest runs a block's hooks in the order they were registered.
 */
export function useTestApp(
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): UsedTestApp {
  let started: TestApp | undefined;
  const closers: Array<() => Promise<void> | void> = [];
  const app = (): TestApp => {
    if (!started) {
      throw new Error('the test app starts in beforeAll: use it in a hook or a test');
    }
    return started;
  };
  beforeAll(async () => {
    started = await startTestApp(env, options);
  });
  afterAll(async () => {
    const running = started;
    started = undefined;
    try {
      for (const end of closers.splice(0).reverse()) {
        await end();
      }
    } finally {
      await running?.close();
    }
  });
  return {
    get url() {
      return app().url;
    },
    get instance() {
      return app().instance;
    },
    get gql() {
      return app().gql;
    },
    get seed() {
      return app().seed;
    },
    rest: new RestClient(() => app().url),
    countQueries: (fn) => app().countQueries(fn),
    beforeClose: (end) => {
      closers.push(end);
    },
    async close() {
      const running = app();
      started = undefined;
      await running.close();
    },
  };
}
