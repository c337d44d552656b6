// @ts-check
'use strict';
/**
 * `npm run memory:idle [-- <seconds>]`: the memory the service takes when idle, as the README
 * states it. Starts the built service (dist/src/main.js, with package.json's node flags) on a
 * fresh embedded database in a temporary directory, waits until it is ready and then `seconds`
 * (default 40) without requests, and sums RSS and PSS (proportional: shared pages split between
 * the processes sharing them) over the service and every process under it (the embedded
 * PostgreSQL server and its workers), from /proc/<pid>/smaps_rollup. Linux only.
 */
const { spawn } = require('node:child_process');
const { mkdtempSync, readFileSync, readdirSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..');

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** @param {number} pid @returns {number[]} the pid and every descendant */
function tree(pid) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended meanwhile.
    }
  }
  const all = [pid];
  for (let i = 0; i < all.length; i += 1) {
    all.push(...(children.get(/** @type {number} */ (all[i])) ?? []));
  }
  return all;
}

/** @param {number} pid @returns {{ rss: number, pss: number, name: string } | null} kB */
function memoryOf(pid) {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
    const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return { rss: kb('Rss'), pss: kb('Pss'), name };
  } catch {
    return null;
  }
}

async function main() {
  const seconds = Number(process.argv[2] ?? 40);
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const flags = String(manifest.config.nodeFlags).split(' ');
  const dataDir = mkdtempSync(join(tmpdir(), 'meetings-idle-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...flags, join(ROOT, 'dist/src/main.js')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(dataDir, 'db') },
    stdio: 'ignore',
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/health/readiness`).then(
        (response) => response.status === 204,
        () => false,
      );
      if (ready) {
        break;
      }
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error('the service did not become ready (run npm run build first)');
      }
      await new Promise((done) => setTimeout(done, 200));
    }
    console.log(`ready; idle for ${seconds} s`);
    await new Promise((done) => setTimeout(done, seconds * 1000));
    const processes = tree(/** @type {number} */ (child.pid))
      .map((pid) => ({ pid, ...memoryOf(pid) }))
      .filter((p) => p.name !== undefined);
    const mib = (kb) => (kb / 1024).toFixed(1);
    for (const p of processes) {
      console.log(
        `${String(p.pid).padStart(8)}  ${String(p.name).padEnd(16)} RSS ${mib(p.rss)} MiB  PSS ${mib(p.pss)} MiB`,
      );
    }
    const sum = (field) => processes.reduce((total, p) => total + (p[field] ?? 0), 0);
    const node = processes[0];
    console.log(
      `node: RSS ${mib(node?.rss ?? 0)} MiB; the whole tree (${processes.length} processes): ` +
        `RSS ${mib(sum('rss'))} MiB counted per process, PSS ${mib(sum('pss'))} MiB`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
