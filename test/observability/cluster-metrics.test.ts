import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildService, type ServiceBuild } from '../faults/support/build';
import { freePort, type ServiceProcess, serviceEnv, startService } from '../faults/support/service';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../helpers/test-database';

const REQUESTS = 40;

// A cluster needs a PostgreSQL server (the embedded database serves one process).
const suite = testDatabaseKind === 'postgres' ? describe : describe.skip;

/** Polls the primary's metrics until both workers report their pools (10 + 10). */
async function untilBothWorkersReport(url: string): Promise<void> {
  const deadline = Date.now() + 45_000;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      last = `${response.status}`;
      if (response.ok && /^db_pool_connections_max 20$/m.test(await response.text())) {
        return;
      }
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the cluster's two workers never both reported their metrics (last: ${last})`);
}

/** The pids of a process's children (the cluster's workers), from /proc. */
function childrenOf(pid: number): number[] {
  const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return tasks ? tasks.split(/\s+/).map(Number) : [];
}

/** A gauge's value in a Prometheus text answer. */
function gauge(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

suite('metrics of a cluster', () => {
  let build: ServiceBuild | undefined;
  let database: TestDatabase | undefined;
  let cluster: ServiceProcess | undefined;
  let metricsUrl = '';

  beforeAll(async () => {
    build = buildService();
    database = await createTestDatabase();
    if (database.config.kind !== 'postgres') {
      throw new Error('expected a PostgreSQL test database');
    }
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    cluster = await startService(
      join(build.main, '../cluster.js'),
      serviceEnv({
        DATABASE_URL: database.config.url,
        CLUSTER_WORKERS: '2',
        METRICS_PORT: String(metricsPort),
      }),
    );
    // The cluster answers once its first worker listens, and a scrape counts the workers that
    // reply: wait until both do.
    await untilBothWorkersReport(metricsUrl);
  }, 90_000);

  afterAll(async () => {
    cluster?.signal('SIGTERM');
    await cluster?.exited;
    build?.remove();
    await database?.drop();
  }, 60_000);

  it('are served by the primary, every worker counted', async () => {
    const url = cluster?.url as string;
    // New connections each time, so both workers serve some of them.
    await Promise.all(
      Array.from({ length: REQUESTS }, () =>
        fetch(`${url}/api/v1/user/me`, { headers: { connection: 'close' } }),
      ),
    );
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    const text = await (await fetch(metricsUrl)).text();
    const line = text
      .split('\n')
      .find((l) =>
        l.startsWith(
          'http_request_duration_seconds_count{method="GET",route="/api/v1/user/me",status="401"}',
        ),
      );
    expect(line?.split(' ').pop()).toBe(String(REQUESTS));
    // Both workers report their pools: the maximum is summed over them (10 + 10).
    expect(text).toMatch(/^db_pool_connections_max 20$/m);
  }, 60_000);

  it('answer with the workers that reply while one is restarting, and say how many did', async () => {
    const primary = cluster as ServiceProcess;
    const before = childrenOf(primary.pid);
    expect(before).toHaveLength(2);
    process.kill(before[0] as number, 'SIGKILL');
    // Every scrape answers, from the moment the worker dies until its replacement listens.
    const seen: Array<{ status: number; workers?: number; reporting?: number }> = [];
    const deadline = Date.now() + 45_000;
    while (Date.now() < deadline) {
      const response = await fetch(metricsUrl);
      const text = await response.text();
      seen.push({
        status: response.status,
        workers: gauge(text, 'cluster_workers'),
        reporting: gauge(text, 'cluster_workers_reporting'),
      });
      // Done once one worker alone has reported, and then both again.
      if (seen.some((scrape) => scrape.reporting === 1) && seen.at(-1)?.reporting === 2) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen.every((scrape) => scrape.status === 200)).toBe(true);
    // One worker alone was reporting for a while (the dead one either no longer asked or not
    // answering in time), and both are again.
    expect(seen).toContainEqual(expect.objectContaining({ status: 200, reporting: 1 }));
    expect(seen.at(-1)).toEqual({ status: 200, workers: 2, reporting: 2 });
    expect(childrenOf(primary.pid)).not.toContain(before[0]);
  }, 60_000);
});
