// Runs the suite on the embedded database, and again on PostgreSQL when one is reachable.
const net = require('node:net');

// Type-checking is `npm run typecheck`'s job; tests are transpiled file by file for speed.
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }];

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

function project(name, globals, extra = {}) {
  return {
    ...extra,
    displayName: name,
    testEnvironment: 'node',
    transform: { '^.+\\.ts$': tsJest },
    testMatch: ['<rootDir>/test/**/*.test.ts'],
    setupFiles: ['reflect-metadata'],
    globals,
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
      project('postgres', { __TEST_DATABASE__: 'postgres', __TEST_DATABASE_URL__: url }),
    );
  } else {
    console.warn('PostgreSQL not reachable: running the suite on the embedded database only');
  }
  return {
    projects,
    testTimeout: 30000,
    // Test files run in a worker process that is replaced once it holds more than this after a
    // file (and, with one core to spare, one worker, not in jest's own process): in band, what
    // ~190 suites leave behind (module registries, schemas) outgrew the 4 GB heap in CI.
    workerIdleMemoryLimit: '1GB',
  };
};
