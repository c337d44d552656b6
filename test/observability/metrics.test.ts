import { getHeapStatistics } from 'node:v8';
import { sample } from '../helpers/prometheus';
import { startTestApp, type TestApp } from '../helpers/test-app';

describe('Prometheus metrics', () => {
  describe('on the service port (default)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it('counts requests by REST route, GraphQL operation and status, with the pool and process', async () => {
      const ada = await t.seed.user();
      for (let i = 0; i < 3; i += 1) {
        await fetch(`${t.url}/api/v1/user/me`, {
          headers: { authorization: `Bearer ${ada.token}` },
        });
      }
      await fetch(`${t.url}/api/v1/user/me`);
      await fetch(`${t.url}/api/v1/meeting/not-a-uuid`, {
        headers: { authorization: `Bearer ${ada.token}` },
      });
      await t.gql.request('query Mine { me { id } }', {}, ada.token);
      await t.gql.request('query Mine { me { id } }', {}, ada.token);

      const response = await fetch(`${t.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      const count = (labels: string) => sample(text, 'http_request_duration_seconds_count', labels);
      expect(count('{method="GET",route="/api/v1/user/me",status="200"}')).toBe(3);
      expect(count('{method="GET",route="/api/v1/user/me",status="401"}')).toBe(1);
      expect(count('{method="GET",route="/api/v1/meeting/:meeting_id",status="422"}')).toBe(1);
      expect(count('{method="POST",route="/graphql Mine",status="200"}')).toBe(2);
      expect(
        sample(
          text,
          'http_request_duration_seconds_bucket',
          '{le="+Inf",method="GET",route="/api/v1/user/me",status="200"}',
        ),
      ).toBe(3);
      expect(sample(text, 'nodejs_eventloop_lag_seconds')).toEqual(expect.any(Number));
      // What the heap has allocated, where V8 counts it (Node 26).
      if ('total_allocated_bytes' in getHeapStatistics()) {
        expect(sample(text, 'nodejs_heap_allocated_bytes_total')).toBeGreaterThan(0);
      } else {
        expect(sample(text, 'nodejs_heap_allocated_bytes_total')).toBeUndefined();
      }
      expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      // Both projects run on a PostgreSQL server now (the embedded one too), so both have a pool.
      expect(sample(text, 'db_pool_connections_max')).toBe(5);
      expect(sample(text, 'db_pool_waiting')).toBe(0);
      expect(sample(text, 'db_pool_connections_idle')).toBeGreaterThanOrEqual(1);
    });

    it('shows the connections lent out as they are: one held by a transaction, none once it ends', async () => {
      const pool = async () => {
        const text = await (await fetch(`${t.url}/metrics`)).text();
        return {
          inUse: sample(text, 'db_pool_connections_in_use'),
          idle: sample(text, 'db_pool_connections_idle'),
        };
      };
      // The instance's heartbeat borrows a connection for a moment every 2 s (on the request
      // pool, see platform/sql/heartbeats.ts): a scrape may meet it, so one held here counts as
      // at least one, and the pool idle is read until a scrape misses the heartbeat.
      await t.instance.database.orm.em.fork().transactional(async (em) => {
        await em.execute('select 1');
        expect((await pool()).inUse).toBeGreaterThanOrEqual(1);
      });
      let idle = await pool();
      for (let scrape = 1; idle.inUse !== 0 && scrape < 10; scrape += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        idle = await pool();
      }
      expect(idle.inUse).toBe(0);
      expect(idle.idle).toBeGreaterThanOrEqual(1);
    });

    it('shows the jobs due and not running, by task, and how long the oldest has waited (also in readiness detail)', async () => {
      // A job of a task no worker runs stalls: it stays due, its wait only grows.
      const key = `metrics-probe-${Date.now()}`;
      const sql = (text: string) => t.instance.database.orm.em.getConnection().execute(text);
      await sql(
        `select graphile_worker.add_job('metrics_probe', '{}'::json, ` +
          `run_at := now() - interval '90 seconds', job_key := '${key}')`,
      );
      try {
        const text = await (await fetch(`${t.url}/metrics`)).text();
        expect(sample(text, 'job_queue_due_jobs', '{task="metrics_probe"}')).toBe(1);
        expect(
          sample(text, 'job_queue_oldest_due_seconds', '{task="metrics_probe"}'),
        ).toBeGreaterThanOrEqual(90);
        // And in readiness detail, for an operator who has no metrics at hand.
        const detail = await fetch(`${t.url}/health/readiness?detail`);
        expect(detail.status).toBe(200);
        const body = (await detail.json()) as {
          ready: boolean;
          replicas: unknown[];
          jobQueue: { task: string; due: number; oldestSeconds: number }[];
        };
        expect(body.ready).toBe(true);
        expect(body.replicas).toEqual([]);
        const probe = body.jobQueue.find((jobs) => jobs.task === 'metrics_probe');
        expect(probe?.due).toBe(1);
        expect(probe?.oldestSeconds).toBeGreaterThanOrEqual(90);
        // Balancers still get no body.
        const plain = await fetch(`${t.url}/health/readiness`);
        expect(plain.status).toBe(204);
      } finally {
        await sql(`select graphile_worker.remove_job('${key}')`);
      }
      const after = await (await fetch(`${t.url}/metrics`)).text();
      expect(sample(after, 'job_queue_due_jobs', '{task="metrics_probe"}')).toBeUndefined();
    });

    it('does not let clients grow the labels: unknown paths share one', async () => {
      for (const path of ['/a', '/b/c', '/api/v1/nothing']) {
        await fetch(`${t.url}${path}`);
      }
      const text = await (await fetch(`${t.url}/metrics`)).text();
      expect(text).not.toMatch(/route="\/a"|route="\/b\/c"|nothing/);
      expect(
        sample(
          text,
          'http_request_duration_seconds_count',
          '{method="GET",route="unmatched",status="404"}',
        ),
      ).toBe(3);
    });

    it('names the IDE page, its bundle, a plain GET /graphql and the event stream', async () => {
      const page = await (
        await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } })
      ).text();
      const script = /src="(\/graphql\/ide\/[^"]+)"/.exec(page)?.[1];
      const bundle = await fetch(`${t.url}${script}`);
      expect(bundle.status).toBe(200);
      // Read to its end: the request is counted once its answer is done.
      await bundle.arrayBuffer();
      expect((await fetch(`${t.url}/graphql`)).status).toBe(400);
      const stream = await fetch(`${t.url}/graphql/stream`, {
        method: 'POST',
        headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'subscription { invitationReceived { id } }' }),
      });
      expect(stream.status).toBe(401);
      await stream.text();

      // A request is counted when its response closes, which may come a moment after its end.
      let text = '';
      const count = (labels: string) => sample(text, 'http_request_duration_seconds_count', labels);
      for (let tries = 0; tries < 20; tries += 1) {
        text = await (await fetch(`${t.url}/metrics`)).text();
        if (count('{method="POST",route="/graphql/stream",status="401"}') !== undefined) {
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(count('{method="GET",route="/graphql (IDE)",status="200"}')).toBe(1);
      expect(count('{method="GET",route="/graphql/ide/:stamp/*",status="200"}')).toBe(1);
      expect(count('{method="GET",route="/graphql",status="400"}')).toBe(1);
      expect(count('{method="POST",route="/graphql/stream",status="401"}')).toBe(1);
      // None of them is counted as a path nothing serves.
      expect(count('{method="GET",route="unmatched",status="200"}')).toBeUndefined();
      expect(count('{method="POST",route="unmatched",status="401"}')).toBeUndefined();
    });
  });

  it('can be moved to a port of its own', async () => {
    const t = await startTestApp({ METRICS_PORT: '0', METRICS_PATH: '/internal/metrics' });
    try {
      expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
      expect((await fetch(`${t.url}/internal/metrics`)).status).toBe(404);
      const port = t.instance.metricsPort();
      expect(port).toEqual(expect.any(Number));
      const text = await (await fetch(`http://127.0.0.1:${port}/internal/metrics`)).text();
      expect(text).toContain('http_request_duration_seconds');
    } finally {
      await t.close();
    }
  });

  it('can be switched off', async () => {
    const t = await startTestApp({ METRICS: 'false' });
    try {
      const response = await fetch(`${t.url}/metrics`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ errors: 'NOT_FOUND' });
      expect(t.instance.metrics).toBeNull();
    } finally {
      await t.close();
    }
  });
});
