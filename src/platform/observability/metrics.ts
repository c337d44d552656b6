import cluster from 'node:cluster';
import { getHeapStatistics } from 'node:v8';
import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { answerPrimaryScrapes } from './cluster-metrics';
import { exposition } from './metrics-server';

/** What the database connection pool tells about itself (src/platform/postgres/pool.ts). */
export interface PoolState {
  /** Connections lent out (or being opened). */
  used: number;
  /** Open connections not lent out. */
  free: number;
  /** Waits for a connection under way. */
  waiting: number;
  max: number;
}

/** What the WebSocket subscriptions report (src/platform/live/). */
export interface LiveMetrics {
  socketsOpen: Gauge;
  subscriptionsActive: Gauge;
  eventsDelivered: Counter;
  /** Events not delivered: `slow_consumer` (its queue was full) or `error` (reading it failed). */
  eventsDropped: Counter<'reason'>;
  /** Times the event listener lost its database connection. */
  listenerReconnects: Counter;
}

/** What the cost of GraphQL operations tells (src/platform/graphql/operation-cost.ts). */
export interface CostMetrics {
  /** An operation that ran: its measured cost before, and the cost of what it answered. */
  observe(requested: number, actual: number): void;
  /** An operation refused: `too_costly` (MAX_QUERY_COST) or `over_budget` (its caller's). */
  refused(reason: 'too_costly' | 'over_budget'): void;
}

/** A gauge read at each scrape: its value in the sample that all of one read's gauges share. */
export interface SampledGauge<T> {
  name: string;
  help: string;
  value(sample: T): number;
}

/** What a module needs to add gauges read at each scrape (see Metrics.sampledGauges). */
export interface SampledGauges {
  sampledGauges<T>(read: () => Promise<T>, gauges: ReadonlyArray<SampledGauge<T>>): void;
}

/**
 * `read` shared by the calls made while it runs: the registry asks every metric at once, and the
 * gauges of one read then cost one statement a scrape.
 */
function sharedWhileRunning<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | null = null;
  return () =>
    (reading ??= read().finally(() => {
      reading = null;
    }));
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The service's Prometheus metrics: request durations by route (REST route or GraphQL
 * operation) and status, the database pool, and Node's process metrics (event-loop lag, memory,
 * CPU, GC). In a cluster worker the registry also answers the primary, which aggregates.
 */
export class Metrics implements SampledGauges {
  readonly registry: Registry;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  readonly live: LiveMetrics;

  constructor(poolState: () => PoolState) {
    this.registry = new Registry();
    if (cluster.isWorker) {
      answerPrimaryScrapes(this.registry);
    }
    collectDefaultMetrics({ register: this.registry });
    this.heapAllocated();
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by REST route or GraphQL operation and status',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers: [this.registry],
    });
    const pool = (read: (pool: PoolState) => number) =>
      function (this: Gauge) {
        this.set(read(poolState()));
      };
    const gauges: Array<[string, string, (pool: PoolState) => number]> = [
      ['db_pool_connections_in_use', 'Database connections lent to a request', (p) => p.used],
      ['db_pool_connections_idle', 'Open database connections not in use', (p) => p.free],
      ['db_pool_waiting', 'Requests waiting for a database connection', (p) => p.waiting],
      ['db_pool_connections_max', 'Size of the database connection pool', (p) => p.max],
    ];
    for (const [name, help, read] of gauges) {
      new Gauge({ name, help, registers: [this.registry], collect: pool(read) });
    }
    const registers = [this.registry];
    this.live = {
      socketsOpen: new Gauge({
        name: 'graphql_ws_sockets_open',
        help: 'WebSocket connections authenticated and open',
        registers,
      }),
      subscriptionsActive: new Gauge({
        name: 'graphql_subscriptions_active',
        help: 'GraphQL subscriptions currently running',
        registers,
      }),
      eventsDelivered: new Counter({
        name: 'graphql_subscription_events_delivered_total',
        help: 'Events handed to a subscriber',
        registers,
      }),
      eventsDropped: new Counter({
        name: 'graphql_subscription_events_dropped_total',
        help: 'Events not delivered, by reason',
        labelNames: ['reason'],
        registers,
      }),
      listenerReconnects: new Counter({
        name: 'events_listener_reconnects_total',
        help: 'Times the event listener lost its database connection and reconnected',
        registers,
      }),
    };
  }

  /**
   * The read replicas (DATABASE_READ_URLS): reads by where they went (`db_reads_total`, counted
   * by the database layer) and each replica's lag (`db_replica_lag_seconds`, -1 when unknown).
   */
  readReplicas(
    counts: () => Readonly<Record<string, number>>,
    replicas: () => ReadonlyArray<{ name: string; lagSeconds: number | null }>,
  ): void {
    const registers = [this.registry];
    new Counter({
      name: 'db_reads_total',
      help: 'Statements of query operations outside transactions, by the server that answered them',
      labelNames: ['target'],
      registers,
      collect(this: Counter<'target'>) {
        this.reset();
        for (const [target, count] of Object.entries(counts())) {
          this.inc({ target }, count);
        }
      },
    });
    new Gauge({
      name: 'db_replica_lag_seconds',
      help: 'How far each read replica is behind the primary (-1: unreachable)',
      labelNames: ['replica'],
      registers,
      collect(this: Gauge<'replica'>) {
        for (const { name, lagSeconds } of replicas()) {
          this.set({ replica: name }, lagSeconds ?? -1);
        }
      },
    });
  }

  /**
   * Bytes V8 has allocated on the heap since the process started
   * (`nodejs_heap_allocated_bytes_total`), where V8 counts them (`total_allocated_bytes`, Node 26):
   * divided by the requests, what a request allocates.
   */
  private heapAllocated(): void {
    if (!('total_allocated_bytes' in getHeapStatistics())) {
      return;
    }
    new Counter({
      name: 'nodejs_heap_allocated_bytes_total',
      help: 'Bytes allocated on the V8 heap since the process started',
      registers: [this.registry],
      collect(this: Counter) {
        const statistics = getHeapStatistics() as ReturnType<typeof getHeapStatistics> & {
          total_allocated_bytes: number;
        };
        this.reset();
        this.inc(statistics.total_allocated_bytes);
      },
    });
  }

  /**
   * Statements sent for requests and the work of the request pool (`db_statements_total`, the
   * QueryCounter's count): divided by the requests, the statements a request costs.
   */
  statements(total: () => number): void {
    new Counter({
      name: 'db_statements_total',
      help: 'SQL statements sent through the request pool (requests, and work sharing its pool)',
      registers: [this.registry],
      collect(this: Counter) {
        this.reset();
        this.inc(total());
      },
    });
  }

  /**
   * The answer cache (RESPONSE_CACHE): lookups by outcome (`hit`, `miss`), answers kept and
   * dropped, and the bytes they take.
   */
  answerCache(cache: {
    counts: Readonly<{ hits: number; misses: number; kept: number; dropped: number }>;
    bytes: number;
  }): void {
    const registers = [this.registry];
    new Counter({
      name: 'answer_cache_lookups_total',
      help: 'Reads looked up in the answer cache, by outcome (hit: answered from a kept answer)',
      labelNames: ['outcome'],
      registers,
      collect(this: Counter<'outcome'>) {
        this.reset();
        this.inc({ outcome: 'hit' }, cache.counts.hits);
        this.inc({ outcome: 'miss' }, cache.counts.misses);
      },
    });
    new Counter({
      name: 'answer_cache_kept_total',
      help: 'Answers kept by the answer cache',
      registers,
      collect(this: Counter) {
        this.reset();
        this.inc(cache.counts.kept);
      },
    });
    new Counter({
      name: 'answer_cache_dropped_total',
      help: 'Kept answers dropped because a table they were read from was written',
      registers,
      collect(this: Counter) {
        this.reset();
        this.inc(cache.counts.dropped);
      },
    });
    new Gauge({
      name: 'answer_cache_bytes',
      help: 'Bytes the kept answers take (counted against RESPONSE_CACHE_MAX_MB)',
      registers,
      collect(this: Gauge) {
        this.set(cache.bytes);
      },
    });
  }

  /**
   * The background job queue, read at each scrape: the jobs due and not running by task
   * (`job_queue_due_jobs`) and how long the oldest of them has waited
   * (`job_queue_oldest_due_seconds`: a stalled queue's only grows).
   */
  jobQueue(
    read: () => Promise<ReadonlyArray<{ task: string; due: number; oldestSeconds: number }>>,
  ): void {
    const registers = [this.registry];
    // One statement a scrape: both gauges share it.
    const current = sharedWhileRunning(() => read().catch(() => []));
    const byTask = (
      name: string,
      help: string,
      value: (row: { due: number; oldestSeconds: number }) => number,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ['task'],
        registers,
        async collect(this: Gauge<'task'>) {
          const rows = await current();
          this.reset();
          for (const row of rows) {
            this.set({ task: row.task }, value(row));
          }
        },
      });
    byTask('job_queue_due_jobs', 'Jobs due and not running, by task', (row) => row.due);
    byTask(
      'job_queue_oldest_due_seconds',
      'How long the oldest job due and not running has waited, by task',
      (row) => row.oldestSeconds,
    );
  }

  /**
   * What GraphQL operations cost (src/platform/graphql/operation-cost.ts): the measured cost
   * before they ran and the cost of what they answered (`graphql_operation_cost_total`, by
   * `measure`), how many ran (`graphql_operations_costed_total`), and operations refused for
   * their cost (`graphql_operations_refused_total`, by `reason`).
   */
  queryCost(): CostMetrics {
    const registers = [this.registry];
    // Sums kept as plain numbers and read at each scrape: a histogram observed twice a request
    // (prom-client's observe converts, validates and hashes its labels each time) took 2.1% of a
    // GraphQL meeting read's busy time in a profile, against 0.4% for the one it already had.
    const sums = { requested: 0, actual: 0, operations: 0 };
    new Counter({
      name: 'graphql_operation_cost_total',
      help: 'Cost of the GraphQL operations run: requested (measured before) and actual (answered)',
      labelNames: ['measure'],
      registers,
      collect(this: Counter<'measure'>) {
        this.reset();
        this.inc({ measure: 'requested' }, sums.requested);
        this.inc({ measure: 'actual' }, sums.actual);
      },
    });
    new Counter({
      name: 'graphql_operations_costed_total',
      help: 'GraphQL operations run and costed (divide graphql_operation_cost_total by it)',
      registers,
      collect(this: Counter) {
        this.reset();
        this.inc(sums.operations);
      },
    });
    const refused = new Counter({
      name: 'graphql_operations_refused_total',
      help: 'GraphQL operations refused for their cost: too_costly (MAX_QUERY_COST), over_budget',
      labelNames: ['reason'],
      registers,
    });
    return {
      observe(requestedCost, actualCost) {
        sums.requested += requestedCost;
        sums.actual += actualCost;
        sums.operations += 1;
      },
      refused: (reason) => refused.inc({ reason }),
    };
  }

  /**
   * Gauges a module reads at each scrape, all from one read (one statement a scrape, however many
   * gauges). Each process of a cluster reads the same database: the primary answers the largest
   * of its workers' values, not their sum. A read that fails leaves the values it last had.
   */
  sampledGauges<T>(read: () => Promise<T>, gauges: ReadonlyArray<SampledGauge<T>>): void {
    const current = sharedWhileRunning(() => read().catch(() => null));
    for (const gauge of gauges) {
      new Gauge({
        name: gauge.name,
        help: gauge.help,
        registers: [this.registry],
        aggregator: 'max',
        async collect(this: Gauge) {
          const sample = await current();
          if (sample !== null) {
            this.set(gauge.value(sample));
          }
        },
      });
    }
  }

  /** A counter a module keeps (mail, say), served with the rest. */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** One request answered: one histogram observation. */
  observe(method: string, route: string, status: number, seconds: number): void {
    this.duration.observe({ method, route, status }, seconds);
  }

  /** The handler that serves the registry in Prometheus' text format. */
  handler(): RequestHandler {
    return exposition(this.registry, () => this.registry.metrics());
  }
}
