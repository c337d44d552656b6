import cluster, { type Worker } from 'node:cluster';
import type { RequestHandler } from 'express';
import { AggregatorRegistry, Gauge, Registry } from 'prom-client';
import { exposition } from './metrics-server';

/** One registry's numbers as a worker sends them: `getMetricsAsJSON()`'s answer. */
type MetricJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

const REQUEST = 'meeting-api:metrics-request';
const ANSWER = 'meeting-api:metrics';

/** How long the primary waits for the workers' numbers before answering with those it has. */
const WORKER_ANSWER_MS = 2_000;

interface MetricsRequest {
  type: typeof REQUEST;
  id: number;
}

interface MetricsAnswer {
  type: typeof ANSWER;
  id: number;
  /** Null when the worker could not collect them: it counts as not reporting. */
  metrics: MetricJson[] | null;
}

const isRequest = (message: unknown): message is MetricsRequest =>
  (message as { type?: unknown } | null)?.type === REQUEST;

const isAnswer = (message: unknown): message is MetricsAnswer =>
  (message as { type?: unknown } | null)?.type === ANSWER;

/** In a cluster worker: answers the primary's requests for this registry's numbers. */
export function answerPrimaryScrapes(registry: Registry): void {
  process.on('message', (message: unknown) => {
    if (!isRequest(message)) {
      return;
    }
    const answer = (metrics: MetricJson[] | null) => {
      const reply: MetricsAnswer = { type: ANSWER, id: message.id, metrics };
      process.send?.(reply);
    };
    // A collector that fails must not become an unhandled rejection that ends the worker.
    registry.getMetricsAsJSON().then(answer, () => answer(null));
  });
}

/**
 * For a cluster's primary: a handler answering the metrics of its workers, aggregated
 * (histograms and counters summed, gauges as prom-client's aggregators say). Only workers that
 * listen are asked, and the answer comes with those that replied within two seconds: a worker
 * being started or restarted no longer fails the whole scrape (prom-client's own
 * `clusterMetrics` waits for every worker and fails after five seconds). `cluster_workers` and
 * `cluster_workers_reporting` tell how many were listening and how many answered.
 */
export function clusterMetricsHandler(): RequestHandler {
  const listening = new Set<Worker>();
  cluster.on('listening', (worker) => listening.add(worker));
  cluster.on('disconnect', (worker) => listening.delete(worker));
  cluster.on('exit', (worker) => listening.delete(worker));
  const pending = new Map<number, (metrics: MetricJson[] | null) => void>();
  cluster.on('message', (_worker, message: unknown) => {
    if (isAnswer(message)) {
      pending.get(message.id)?.(message.metrics);
    }
  });
  const own = new Registry();
  const workers = new Gauge({
    name: 'cluster_workers',
    help: 'Cluster workers listening for requests',
    registers: [own],
  });
  const reporting = new Gauge({
    name: 'cluster_workers_reporting',
    help: 'Cluster workers whose metrics the last scrape included',
    registers: [own],
  });
  let nextId = 0;
  const ask = (worker: Worker): Promise<MetricJson[] | null> =>
    new Promise((resolve) => {
      const id = nextId++;
      const settle = (metrics: MetricJson[] | null) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(metrics);
      };
      const timer = setTimeout(() => settle(null), WORKER_ANSWER_MS);
      pending.set(id, settle);
      const request: MetricsRequest = { type: REQUEST, id };
      try {
        worker.send(request);
      } catch {
        settle(null);
      }
    });
  return exposition(own, async () => {
    const asked = [...listening].filter((worker) => worker.isConnected());
    const answers = await Promise.all(asked.map(ask));
    const answered = answers.filter((metrics): metrics is MetricJson[] => metrics !== null);
    workers.set(asked.length);
    reporting.set(answered.length);
    return AggregatorRegistry.aggregate([...answered, await own.getMetricsAsJSON()]).metrics();
  });
}
