import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metricSum, metricsOf } from '../lib/metrics';
import type { BenchOptions } from '../lib/options';
import { RESULTS } from '../lib/paths';
import {
  cpuMsBetween,
  cpuSnapshot,
  postgresPids,
  processTree,
  type Server,
} from '../lib/processes';
import type { PlannedRequest } from '../lib/protocol';
import { readRequests, scenarioInfo, SEEDED_READS } from '../lib/scenarios';
import { prepareContext } from './prepare';
import { fmt, log } from './progress';
import { startBaseline, startService } from './targets';

/*
 * The cost pass (--costs-only): what one request of each read scenario costs the service and the
 * baseline, counted by the kernel rather than timed: the system calls and bytes of the process
 * (/proc/<pid>/io: read-like and write-like calls, bytes through them, sockets included), every
 * system call by name for a smaller sample (strace -c, attached to every thread, when strace is
 * there), the TCP segments on the machine (/proc/net/snmp: both the HTTP and the database sockets,
 * all on loopback), PostgreSQL's own calls and bytes for the request, and the service's heap
 * allocation and GC time (its nodejs_heap_allocated_bytes_total and nodejs_gc_duration_seconds). Requests are sent by the harness, `CONNECTIONS` at a time.
 */

const CONNECTIONS = 8;

interface Io {
  syscr: number;
  syscw: number;
  rchar: number;
  wchar: number;
}

interface Side {
  io: Io;
  database: Io;
  segments: number;
  cpuMs: number;
  /** GC ms and KiB allocated per request (the service's metrics), null for the baseline. */
  heap: { gcMs: number; allocatedKib: number } | null;
  /** Every system call by name, per request (strace's sample), or null without strace. */
  calls: Record<string, number> | null;
}

const ZERO: Io = { syscr: 0, syscw: 0, rchar: 0, wchar: 0 };

function ioOf(pids: readonly number[]): Io {
  const total = { ...ZERO };
  for (const pid of pids) {
    try {
      for (const line of readFileSync(`/proc/${pid}/io`, 'utf8').split('\n')) {
        const [name, value] = line.split(': ');
        if (name && name in total) {
          total[name as keyof Io] += Number(value);
        }
      }
    } catch {
      // the process went away
    }
  }
  return total;
}

const minus = (a: Io, b: Io, per: number): Io => ({
  syscr: (a.syscr - b.syscr) / per,
  syscw: (a.syscw - b.syscw) / per,
  rchar: (a.rchar - b.rchar) / per,
  wchar: (a.wchar - b.wchar) / per,
});

/** TCP segments sent on the machine (every one on loopback here is also received). */
function segments(): number {
  const lines = readFileSync('/proc/net/snmp', 'utf8').split('\n');
  const [names, values] = lines.filter((line) => line.startsWith('Tcp:'));
  const index = names?.split(' ').indexOf('OutSegs') ?? -1;
  return Number(values?.split(' ')[index] ?? 0);
}

/**
 * The service's GC time (seconds) and heap allocation (bytes, where V8 counts it) so far, from its
 * metrics; null for the baseline, which has none.
 */
async function heapWork(target: Server): Promise<{ gc: number; allocated: number } | null> {
  const text = await metricsOf(target);
  return text === null
    ? null
    : {
        gc: metricSum(text, 'nodejs_gc_duration_seconds_sum'),
        allocated: metricSum(text, 'nodejs_heap_allocated_bytes_total'),
      };
}

/** Sends `count` requests, `CONNECTIONS` at a time, each answered 2xx. */
async function send(target: Server, requests: readonly PlannedRequest[], count: number) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let i = next++; i < count; i = next++) {
        const request = requests[i % requests.length] as PlannedRequest;
        const response = await fetch(`${target.url}${request.path}`, {
          method: request.method,
          // As the load generator asks (fetch would ask for gzip): the same answers it measures.
          headers: { 'accept-encoding': 'identity', ...request.headers },
          ...(request.body === undefined ? {} : { body: request.body }),
        });
        await response.arrayBuffer();
        if (response.status < 200 || response.status >= 300) {
          throw new Error(`cost pass: ${request.path} answered ${response.status}`);
        }
      }
    }),
  );
}

/** Every system call of `pid`'s threads while `work` runs, by name (strace -c), or null. */
async function traced(
  pid: number,
  work: () => Promise<void>,
): Promise<Record<string, number> | null> {
  if (spawnSync('strace', ['-V']).status !== 0) {
    await work();
    return null;
  }
  const out = join(tmpdir(), `bench-strace-${pid}-${Date.now()}.txt`);
  const threads = readdirSync(`/proc/${pid}/task`).flatMap((tid) => ['-p', tid]);
  const strace = spawn('strace', ['-c', '-f', '-q', '-o', out, ...threads], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  try {
    await work();
  } finally {
    strace.kill('SIGINT');
    await new Promise((resolve) => strace.once('exit', resolve));
  }
  const calls: Record<string, number> = {};
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    // % time, seconds, usecs/call, calls, [errors], syscall
    const fields = line.trim().split(/\s+/);
    const name = fields[fields.length - 1];
    if (fields.length >= 5 && /^\d/.test(fields[0] ?? '') && name && name !== 'total') {
      calls[name] = Number(fields[3]);
    }
  }
  rmSync(out, { force: true });
  return calls;
}

async function measureSide(
  target: Server,
  requests: readonly PlannedRequest[],
  count: number,
  traceCount: number,
): Promise<Side> {
  const pids = processTree(target.child.pid as number);
  await send(target, requests, Math.min(count, 200)); // warm
  const database = postgresPids();
  const before = {
    io: ioOf(pids),
    database: ioOf(database),
    segments: segments(),
    cpu: cpuSnapshot(pids),
    heap: await heapWork(target),
  };
  await send(target, requests, count);
  const heap = await heapWork(target);
  const side: Side = {
    io: minus(ioOf(pids), before.io, count),
    database: minus(ioOf(postgresPids()), before.database, count),
    segments: (segments() - before.segments) / count,
    cpuMs: cpuMsBetween(before.cpu, cpuSnapshot(pids)) / count,
    heap:
      heap && before.heap
        ? {
            gcMs: ((heap.gc - before.heap.gc) * 1000) / count,
            allocatedKib: (heap.allocated - before.heap.allocated) / 1024 / count,
          }
        : null,
    calls: null,
  };
  const calls = await traced(target.child.pid as number, () => send(target, requests, traceCount));
  if (calls) {
    side.calls = Object.fromEntries(
      Object.entries(calls).map(([name, n]) => [name, n / traceCount]),
    );
  }
  return side;
}

const perRequest = (n: number): string => (n >= 100 ? fmt(n) : n.toFixed(n >= 10 ? 1 : 2));

function topCalls(calls: Record<string, number> | null): string {
  if (!calls) {
    return '–';
  }
  const total = Object.values(calls).reduce((sum, n) => sum + n, 0);
  const top = Object.entries(calls)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 4)
    .map(([name, n]) => `${name} ${perRequest(n)}`);
  return `${perRequest(total)}: ${top.join(', ')}`;
}

function row(title: string, name: string, side: Side): string {
  return (
    `| ${title} | ${name} | ${perRequest(side.io.syscr + side.io.syscw)} ` +
    `(${perRequest(side.io.syscr)} r, ${perRequest(side.io.syscw)} w) | ` +
    `${fmt(side.io.rchar)} / ${fmt(side.io.wchar)} | ${topCalls(side.calls)} | ` +
    `${perRequest(side.segments)} | ${perRequest(side.database.syscr + side.database.syscw)} / ` +
    `${fmt(side.database.wchar)} | ${side.cpuMs.toFixed(2)} | ` +
    `${side.heap ? `${fmt(side.heap.allocatedKib)} / ${side.heap.gcMs.toFixed(3)}` : '–'} |`
  );
}

/** Runs the pass, prints it and writes bench/results/costs.md. */
export async function costRun(
  dbUrl: string,
  options: BenchOptions,
  command: string,
): Promise<void> {
  const count = options.quick ? 1_000 : 5_000;
  const traceCount = options.quick ? 200 : 1_000;
  log(`Cost pass: ${fmt(count)} requests a scenario and side, ${traceCount} traced…`);
  const service = await startService(dbUrl, 'warn', { name: 'service (costs)' });
  const baseline = await startBaseline(dbUrl);
  try {
    const ctx = await prepareContext(dbUrl, service);
    const keys = SEEDED_READS.filter((key) => options.scenarios.includes(key));
    const rows: string[] = [];
    for (const key of keys) {
      const requests = readRequests(key, ctx);
      const title = scenarioInfo(key).title;
      log(`${title}…`);
      rows.push(row(title, 'service', await measureSide(service, requests, count, traceCount)));
      rows.push(row(title, 'baseline', await measureSide(baseline, requests, count, traceCount)));
    }
    const text = [
      '## What a request costs, counted',
      '',
      `Per request, over ${fmt(count)} requests a scenario and side (${CONNECTIONS} at a time, ` +
        `after 200 to warm up; bench/run/cost-pass.ts): the process's read-like and write-like ` +
        `system calls and the bytes through them (/proc/<pid>/io: the HTTP and the database ` +
        `sockets together); every system call by name over ${traceCount} more (strace -c on ` +
        `every thread: the total, then the four most frequent); TCP segments sent on the machine ` +
        `(loopback: HTTP and database); PostgreSQL's calls and bytes written; the process's CPU; ` +
        `the service's heap allocation and GC time (nodejs_heap_allocated_bytes_total, ` +
        `nodejs_gc_duration_seconds).`,
      '',
      '| scenario | side | I/O calls | bytes read / written | all calls (strace) | TCP segments | PostgreSQL calls / bytes written | CPU ms | KiB allocated / GC ms |',
      '| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |',
      ...rows,
    ].join('\n');
    log(`\n${text}`);
    writeFileSync(join(RESULTS, 'costs.md'), `${text}\n\n\`${command}\`\n`);
  } finally {
    await service.stop();
    await baseline.stop();
  }
}
