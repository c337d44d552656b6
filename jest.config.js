// Runs the suite on the embedded database, and again on PostgreSQL when one is reachable; there,
// the contract suites run a third time through pgbouncer in transaction mode when it is installed.
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

// Each test thread loads the service once for all the files it runs (jest-light-runner: worker
// threads, Node's own module loader), not once per file as jest's runner does (a module registry
// per file): about 1 s of CPU a file less, and code that stays compiled and warm. TypeScript is
// compiled by SWC as the build compiles it, through Node's module hooks (test/helpers/light/).
// Type-checking is `npm run typecheck`'s job (npm test runs it first).
const SETUP = '<rootDir>/test/helpers/light';
// The same hooks in jest's own process, for the global set-up and tear-down files (TypeScript);
// jest transforms nothing itself (`transform: {}`).
require('./test/helpers/light/register-typescript.cjs');

function postgresUrl() {
  if (process.env.TEST_DATABASE_URL === '') {
    return null;
  }
  return process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
}

function reachable(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 5432) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** pgbouncer's executable, if installed (Debian puts it in /usr/sbin, often not on PATH). */
function pgbouncerBinary() {
  const dirs = [...(process.env.PATH || '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin'];
  return dirs.map((dir) => path.join(dir, 'pgbouncer')).find((file) => fs.existsSync(file)) ?? null;
}

// Contract suites that run again through pgbouncer in transaction mode, with the pooler's own.
const POOLED_SUITES = [
  '<rootDir>/test/pooler/**/*.test.ts',
  '<rootDir>/test/rest/meetings.test.ts',
  '<rootDir>/test/rest/auth.test.ts',
  '<rootDir>/test/rest/follows.test.ts',
  '<rootDir>/test/subscriptions/server-sent-events.test.ts',
];

function project(name, globals, extra = {}) {
  return {
    displayName: name,
    testEnvironment: 'node',
    transform: {},
    testMatch: ['<rootDir>/test/**/*.test.ts'],
    // test/pooler needs pgbouncer in the path: only the pgbouncer project runs it.
    testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/pooler/'],
    runner: 'jest-light-runner',
    // Once per thread: the thread serves this project only.
    setupFiles: [
      `${SETUP}/register-typescript.cjs`,
      `${SETUP}/project-globals.cjs`,
      'reflect-metadata',
    ],
    setupFilesAfterEnv: [`${SETUP}/timeouts.cjs`, `${SETUP}/fake-timers.cjs`],
    globals,
    ...extra,
  };
}

module.exports = async () => {
  const url = postgresUrl();
  // The embedded PostgreSQL the service ships, started once for the run from the service's code.
  const embedded = project(
    'embedded',
    { __TEST_DATABASE__: 'embedded' },
    {
      globalSetup: '<rootDir>/test/helpers/embedded-server.setup.ts',
      globalTeardown: '<rootDir>/test/helpers/embedded-server.teardown.ts',
    },
  );
  const projects = [embedded];
  if (url && (await reachable(url))) {
    projects.push(
      project(
        'postgres',
        { __TEST_DATABASE__: 'postgres', __TEST_DATABASE_URL__: url },
        {
          globalSetup: '<rootDir>/test/helpers/postgres-template.setup.ts',
          globalTeardown: '<rootDir>/test/helpers/postgres-template.teardown.ts',
        },
      ),
    );
    const pgbouncer = pgbouncerBinary();
    if (pgbouncer || process.env.CI) {
      // Without the binary (CI only) its set-up fails, saying so.
      projects.push(
        project(
          'pgbouncer',
          {
            __TEST_DATABASE__: 'postgres',
            __TEST_DATABASE_URL__: url,
            __PGBOUNCER_BINARY__: pgbouncer,
            __THROUGH_PGBOUNCER__: true,
          },
          {
            testMatch: POOLED_SUITES,
            testPathIgnorePatterns: ['/node_modules/'],
            globalSetup: '<rootDir>/test/helpers/pgbouncer.setup.ts',
            globalTeardown: '<rootDir>/test/helpers/pgbouncer.teardown.ts',
          },
        ),
      );
    } else {
      console.warn(
        'pgbouncer is not installed: the suites through a transaction pooler (project pgbouncer) ' +
          'are skipped; `apt-get install pgbouncer` runs them (with CI set they must run)',
      );
    }
  } else {
    console.warn('PostgreSQL not reachable: running the suite on the embedded database only');
  }
  return {
    projects,
    // Once per run, whichever projects run: the browser assets the pages load.
    globalSetup: '<rootDir>/test/helpers/built-assets.setup.ts',
    transform: {},
    // Each project's tests by outcome at the end, to compare two runs project by project.
    reporters: ['default', '<rootDir>/test/helpers/project-summary.reporter.cjs'],
    testTimeout: 30000,
    // Test files wait much of their time (on the database, on timers, on child processes): one
    // and a half workers per core keeps both cores busy (jest's default, one fewer than the
    // cores, ran one file at a time on two cores). A number: jest reads '150%' as 150 workers.
    maxWorkers: Math.max(1, Math.round(os.availableParallelism() * 1.5)),
  };
};
