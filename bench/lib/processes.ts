import { readdirSync, readFileSync } from 'node:fs';
import { type ServiceProcess, startServiceProcess } from '../../test/helpers/service-process';

/** A server the harness started (the service or the baseline), with its stdout lines. */
export interface Server extends ServiceProcess {
  /** stdout lines not yet taken (JSON log lines of the service). */
  lines: string[];
}

/** Starts `node [nodeArgs] <script>` (with exactly `env`) and waits until GET <readyPath> answers 2xx. */
export async function startServer(options: {
  name: string;
  script: string;
  /** The Node.js binary (default: the bench's own). */
  execPath?: string;
  nodeArgs?: string[];
  cwd: string;
  env: Record<string, string>;
  readyPath: string;
}): Promise<Server> {
  const lines: string[] = [];
  const { readyPath, ...child } = options;
  const server = await startServiceProcess({
    ...child,
    ready: { path: readyPath, withinMs: 90_000, everyMs: 200 },
    onLine: (line, stream) => {
      if (stream === 'stdout') {
        lines.push(line);
        if (lines.length > 200_000) {
          lines.splice(0, 100_000);
        }
      }
    },
  });
  return { ...server, lines };
}

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The process and all its descendants (cluster workers). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // the process went away
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i += 1) {
    tree.push(...(children.get(tree[i] as number) ?? []));
  }
  return tree;
}

/** Resident memory (bytes) of a process tree: current and peak (VmHWM, summed per process). */
export function memoryOf(pids: readonly number[]): { rss: number; hwm: number } {
  let rss = 0;
  let hwm = 0;
  for (const p of pids) {
    rss += statusField(p, 'VmRSS');
    hwm += statusField(p, 'VmHWM');
  }
  return { rss, hwm };
}

/** Polls the RSS of a process tree (as it is now) until stopped; answers the largest sum seen. */
export function sampleRss(root: number, everyMs = 500): { stop(): number } {
  const pids = processTree(root);
  let peak = memoryOf(pids).rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryOf(pids).rss);
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, memoryOf(pids).rss);
    },
  };
}

export const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** Busy CPU ticks of the whole machine since boot (/proc/stat, all but idle and iowait). */
export function machineBusyTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const [, user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .map(Number);
  return user + nice + system + irq + softirq + steal;
}

/** utime + stime ticks and command name of a process, or null when it is gone. */
function processTicks(pid: number): { ticks: number; comm: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ticks: Number(fields[11]) + Number(fields[12]), comm };
  } catch {
    return null;
  }
}

/** CPU ticks used so far by each of the given processes that is still running. */
export function cpuSnapshot(pids: readonly number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    const t = processTicks(pid);
    if (t) {
      ticks.set(pid, t.ticks);
    }
  }
  return ticks;
}

/**
 * CPU time (ms) used between two snapshots by the processes alive at the second one (a process
 * started in between counts from its start; one that ended in between is not counted).
 */
export function cpuMsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ticks = 0;
  for (const [pid, t] of after) {
    ticks += t - (before.get(pid) ?? 0);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** The PostgreSQL server's processes (postmaster and backends). */
export function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (/^\d+$/.test(entry) && processTicks(Number(entry))?.comm.startsWith('postgres')) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

/** Ticks of the harness's process tree and of every PostgreSQL process, by pid. */
function ourTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of processTree(process.pid)) {
    const t = processTicks(pid);
    if (t) {
      ticks.set(pid, t.ticks);
    }
  }
  for (const entry of readdirSync('/proc')) {
    if (/^\d+$/.test(entry) && !ticks.has(Number(entry))) {
      const t = processTicks(Number(entry));
      if (t && t.comm.startsWith('postgres')) {
        ticks.set(Number(entry), t.ticks);
      }
    }
  }
  return ticks;
}

/**
 * How many cores other processes on the machine kept busy meanwhile: machine busy time less the
 * harness's processes (service, baseline, load generator) and PostgreSQL. Other sessions' test
 * runs on a shared machine show up here and make a run's numbers less trustworthy.
 */
export function contentionMeter(): { stop(): number } {
  const startedAt = process.hrtime.bigint();
  const busy0 = machineBusyTicks();
  const ours0 = ourTicks();
  return {
    stop() {
      const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
      const busy = machineBusyTicks() - busy0;
      let ours = 0;
      for (const [pid, ticks] of ourTicks()) {
        ours += ticks - (ours0.get(pid) ?? 0);
      }
      return seconds > 0 ? Math.max(0, (busy - ours) / TICKS_PER_SECOND / seconds) : 0;
    },
  };
}

/** What a stretch of work cost: CPU of the target and of PostgreSQL, and how busy the rest was. */
export interface Cost {
  targetCpuMs: number;
  databaseCpuMs: number;
  /** Cores other processes kept busy meanwhile (see contentionMeter). */
  contention: number;
}

/** Starts measuring the cost of what `target` (its process tree) and PostgreSQL do from now. */
export function costMeter(target: number): { stop(): Cost } {
  const pids = processTree(target);
  const meter = contentionMeter();
  const before = { target: cpuSnapshot(pids), database: cpuSnapshot(postgresPids()) };
  return {
    stop() {
      return {
        targetCpuMs: cpuMsBetween(before.target, cpuSnapshot(pids)),
        databaseCpuMs: cpuMsBetween(before.database, cpuSnapshot(postgresPids())),
        contention: meter.stop(),
      };
    },
  };
}
