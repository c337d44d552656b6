import type { Server } from './processes';

/** A server's Prometheus text (GET /metrics), or null where none is served (the baseline). */
export async function metricsOf(server: Server): Promise<string | null> {
  const response = await fetch(`${server.url}/metrics`).catch(() => null);
  return response?.status === 200 ? response.text() : null;
}

/**
 * The sum of the samples of `name` in a Prometheus text: of every label set, or of one when the
 * name carries it (`answer_cache_lookups_total{outcome="hit"}`); 0 when there is none.
 */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}
