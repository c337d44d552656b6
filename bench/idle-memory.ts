import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServiceProcess } from '../test/helpers/service-process';
import { mib } from './lib/format';
import { ROOT, serviceNodeFlags } from './lib/paths';
import { processTree } from './lib/processes';

/**
 * `npm run memory:idle [-- <seconds>]`: the memory the service takes when idle, as
 * docs/operations.md states it. Starts the built service (dist/src/main.js, with package.json's
 * node flags) on a fresh embedded database in a temporary directory, waits until it is ready and
 * then `seconds` (default 40) without requests, and sums RSS and PSS (proportional: shared pages
 * split between the processes sharing them) over the service and every process under it (the
 * embedded PostgreSQL server, its workers, the watchdog shells), from /proc/<pid>/smaps_rollup.
 * Linux only.
 */

/** Resident and proportional memory of one process, in bytes; null once it is gone. */
function memoryOf(pid: number): { name: string; rss: number; pss: number } | null {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (field: string): number =>
      Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0) * 1024;
    return {
      name: readFileSync(`/proc/${pid}/comm`, 'utf8').trim(),
      rss: kb('Rss'),
      pss: kb('Pss'),
    };
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 40);
  const dataDir = mkdtempSync(join(tmpdir(), 'meetings-idle-'));
  const service = await startServiceProcess({
    script: join(ROOT, 'dist/src/main.js'),
    nodeArgs: serviceNodeFlags(),
    env: { PATH: process.env['PATH'], DATA_DIR: join(dataDir, 'db'), LOG_LEVEL: 'warn' },
    ready: { path: '/health/readiness', withinMs: 60_000, everyMs: 200 },
  });
  try {
    console.log(`ready; idle for ${seconds} s`);
    await new Promise((done) => setTimeout(done, seconds * 1000));
    const processes = processTree(service.pid).flatMap((pid) => {
      const memory = memoryOf(pid);
      return memory ? [{ pid, ...memory }] : [];
    });
    for (const p of processes) {
      console.log(
        `${String(p.pid).padStart(8)}  ${p.name.padEnd(16)} RSS ${mib(p.rss)}  PSS ${mib(p.pss)}`,
      );
    }
    const sum = (field: 'rss' | 'pss'): number => processes.reduce((t, p) => t + p[field], 0);
    console.log(
      `node: RSS ${mib(processes[0]?.rss ?? 0)}; the whole tree (${processes.length} processes): ` +
        `RSS ${mib(sum('rss'))} counted per process, PSS ${mib(sum('pss'))}`,
    );
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
