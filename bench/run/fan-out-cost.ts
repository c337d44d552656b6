import { readFileSync } from 'node:fs';
import { withClient } from '../lib/db';
import {
  cpuMsBetween,
  cpuSnapshot,
  machineBusyTicks,
  processTree,
  TICKS_PER_SECOND,
} from '../lib/processes';

// What a stretch of the fan-out pass cost, from /proc: the service's CPU (utime + stime of its
// process), the CPU of the PostgreSQL server the database is on (its postmaster's processes only:
// other servers on the machine, a test's or a fleet run's, are not counted), the harness's own
// (the subscribers and writers), and how many cores everything else kept busy meanwhile.

export interface FanOutCost {
  nodeMs: number;
  databaseMs: number;
  harnessMs: number;
  /** Cores kept busy by other processes (the machine's busy time less the three above). */
  otherCores: number;
}

/** The postmaster of the server `dbUrl` is on: the parent of a backend of it. */
async function postmasterOf(dbUrl: string): Promise<number> {
  return withClient(dbUrl, async (client) => {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    // Read while the backend is there (it ends with the connection).
    const stat = readFileSync(`/proc/${rows[0]?.pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  });
}

/** Starts measuring; `stop` answers the cost since. */
export async function fanOutMeter(
  dbUrl: string,
  servicePid: number,
): Promise<{ stop(): FanOutCost }> {
  const postmaster = await postmasterOf(dbUrl);
  const service = processTree(servicePid);
  const harnessPids = () => processTree(process.pid).filter((pid) => !service.includes(pid));
  const startedAt = performance.now();
  const busy = machineBusyTicks();
  const before = {
    node: cpuSnapshot(service),
    database: cpuSnapshot(processTree(postmaster)),
    harness: cpuSnapshot(harnessPids()),
  };
  return {
    stop() {
      const nodeMs = cpuMsBetween(before.node, cpuSnapshot(service));
      const databaseMs = cpuMsBetween(before.database, cpuSnapshot(processTree(postmaster)));
      const harnessMs = cpuMsBetween(before.harness, cpuSnapshot(harnessPids()));
      const seconds = (performance.now() - startedAt) / 1000;
      const busyMs = ((machineBusyTicks() - busy) * 1000) / TICKS_PER_SECOND;
      const otherMs = Math.max(0, busyMs - nodeMs - databaseMs - harnessMs);
      return { nodeMs, databaseMs, harnessMs, otherCores: otherMs / 1000 / seconds };
    },
  };
}
