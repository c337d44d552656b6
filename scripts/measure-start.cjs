// @ts-check
'use strict';
/**
 * `npm run measure:start [-- --fresh]`: the start-up figures CONTRIBUTING.md states, measured here.
 *
 * 1. first start: `npm start` (build included) on an empty embedded data directory, until
 *    GET /health/readiness answers 2xx; with --fresh, dist/ is removed first, as on a fresh clone;
 * 2. restart: `npm start` again on that data directory;
 * 3. dev reload: `npm run dev`, then a change under src/ (its mtime and content touched and
 *    restored), until the new process logs its addresses again (the old one answers readiness
 *    until it has shut down, so the log line, not readiness, marks the new one).
 *
 * Every time is from the spawn (or the change) to the answer, in wall-clock seconds. The data
 * directory is a temporary one, removed at the end. Linux or macOS; needs nothing but Node.
 */
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync, readFileSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');

const ROOT = resolve(__dirname, '..');
const PORT = Number(process.env['MEASURE_PORT'] ?? 4690);
const READY_URL = `http://127.0.0.1:${PORT}/health/readiness`;
/** The field of the start log line that lists the service's addresses (src/home.ts). */
const STARTED_MARK = '"home":"';
const TOUCHED = join(ROOT, 'src/home.ts');

if (process.argv.includes('--help')) {
  console.log('usage: npm run measure:start [-- --fresh]   (see scripts/measure-start.cjs)');
  process.exit(0);
}

const seconds = (/** @type {bigint} */ since) => Number(process.hrtime.bigint() - since) / 1e9;

/** @param {string[]} args @param {string} dataDir */
function npm(args, dataDir) {
  const child = spawn('npm', args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(PORT), DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  let starts = 0;
  child.stdout.setEncoding('utf8').on('data', (/** @type {string} */ chunk) => {
    starts += chunk.split(STARTED_MARK).length - 1;
  });
  return { child, starts: () => starts };
}

/** @param {() => Promise<boolean>} test */
async function until(test, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await test()) {
      return;
    }
    await sleep(25);
  }
  throw new Error('timed out');
}

const ready = () =>
  globalThis.fetch(READY_URL).then(
    (response) => response.ok,
    () => false,
  );

/** @param {import('node:child_process').ChildProcess} child */
async function stop(child) {
  const exited = new Promise((done) => child.once('exit', done));
  if (child.pid) {
    process.kill(-child.pid, 'SIGTERM');
  }
  await exited;
}

async function main() {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'measure-start-')), 'db');
  try {
    if (process.argv.includes('--fresh')) {
      rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
    }
    const results = [];
    for (const label of ['first start', 'restart']) {
      const began = process.hrtime.bigint();
      const run = npm(['start', '--silent'], dataDir);
      await until(ready);
      results.push([label, seconds(began)]);
      await stop(run.child);
    }
    const dev = npm(['run', 'dev', '--silent'], dataDir);
    await until(async () => dev.starts() === 1 && (await ready()));
    const original = readFileSync(TOUCHED, 'utf8');
    const began = process.hrtime.bigint();
    writeFileSync(TOUCHED, `${original}\n`);
    try {
      await until(async () => dev.starts() === 2 && (await ready()));
    } finally {
      writeFileSync(TOUCHED, original);
    }
    results.push(['dev reload', seconds(began)]);
    await stop(dev.child);
    for (const [label, value] of results) {
      console.log(`${label}: ${Number(value).toFixed(2)} s`);
    }
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
