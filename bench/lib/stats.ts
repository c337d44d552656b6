import type { LoadResult } from './protocol';

/** The q-quantile (0..1) of sorted values (nearest rank). */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) {
    return Number.NaN;
  }
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

/** One target's numbers over all rounds of a scenario. */
export interface Summary {
  /** 2xx responses per second over all measured seconds. */
  rps: number;
  /** Requests/s of each round, to show the spread. */
  roundRps: number[];
  p50: number;
  p99: number;
  mean: number;
  responses: number;
  /**
   * Responses without the expected status (any 2xx unless the requests expect one), by status;
   * answers that failed their request's check (`wrong answer`); connection errors and timeouts.
   */
  failures: Record<string, number>;
  /** Largest sampled RSS of the target's processes during the scenario (bytes). */
  peakRss: number;
  /** Cores other processes on the machine kept busy, on average over the runs. */
  contention: number;
  /** CPU time of the target (all its processes) per response, ms. */
  cpuPerRequest: number;
  /** CPU time of PostgreSQL per response, ms. */
  databaseCpuPerRequest: number;
}

function perResponse(
  results: readonly LoadResult[],
  value: (r: LoadResult) => number | undefined,
): number {
  const responses = results.reduce((n, r) => n + r.responses, 0);
  const total = results.reduce((n, r) => n + (value(r) ?? Number.NaN), 0);
  return responses > 0 ? total / responses : Number.NaN;
}

export function summarize(results: readonly LoadResult[], peakRss: number): Summary {
  const total = results.reduce((n, r) => n + r.latencies.length, 0);
  const all = new Float64Array(total);
  let offset = 0;
  for (const r of results) {
    all.set(r.latencies, offset);
    offset += r.latencies.length;
  }
  all.sort();
  const ok = results.reduce((n, r) => n + r.ok, 0);
  const seconds = results.reduce((n, r) => n + r.seconds, 0);
  const failures: Record<string, number> = {};
  for (const r of results) {
    for (const [status, count] of Object.entries(r.statusCounts)) {
      const right =
        r.expectedStatus === undefined
          ? status.startsWith('2')
          : status === String(r.expectedStatus);
      if (!right) {
        failures[status] = (failures[status] ?? 0) + count;
      }
    }
    if ((r.mismatches ?? 0) > 0) {
      failures['wrong answer'] = (failures['wrong answer'] ?? 0) + (r.mismatches ?? 0);
    }
    if (r.errors > 0) {
      failures['errors'] = (failures['errors'] ?? 0) + r.errors;
    }
    if (r.timeouts > 0) {
      failures['timeouts'] = (failures['timeouts'] ?? 0) + r.timeouts;
    }
  }
  return {
    rps: seconds > 0 ? ok / seconds : 0,
    roundRps: results.map((r) => (r.seconds > 0 ? r.ok / r.seconds : 0)),
    p50: quantile(all, 0.5),
    p99: quantile(all, 0.99),
    mean: total > 0 ? all.reduce((a, b) => a + b, 0) / total : Number.NaN,
    responses: results.reduce((n, r) => n + r.responses, 0),
    failures,
    peakRss,
    contention:
      results.length > 0
        ? results.reduce((n, r) => n + (r.contention ?? 0), 0) / results.length
        : 0,
    cpuPerRequest: perResponse(results, (r) => r.targetCpuMs),
    databaseCpuPerRequest: perResponse(results, (r) => r.databaseCpuMs),
  };
}
