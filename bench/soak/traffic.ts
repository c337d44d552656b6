import { call } from '../../test/faults/support/load';

// Requests to the service, each recorded under an operation name: counts, statuses, latencies.

export interface OpStats {
  count: number;
  statuses: Map<string, number>;
  latencies: number[];
}

/** What the run has seen so far. */
export const traffic = {
  /** The service's base URL. */
  baseUrl: '',
  stats: new Map<string, OpStats>(),
  errorsByStatus: new Map<string, number>(),
  errorSamples: [] as string[],
  totalRequests: 0,
  totalErrors: 0,
};

/** Forgets everything recorded so far (the setup traffic is not part of the measured run). */
export function resetTraffic(): void {
  traffic.stats.clear();
  traffic.errorsByStatus.clear();
  traffic.errorSamples.length = 0;
  traffic.totalRequests = 0;
  traffic.totalErrors = 0;
}

function record(op: string, status: string, ms: number, expected: boolean, detail: string): void {
  let entry = traffic.stats.get(op);
  if (!entry) {
    entry = { count: 0, statuses: new Map(), latencies: [] };
    traffic.stats.set(op, entry);
  }
  entry.count += 1;
  entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
  entry.latencies.push(ms);
  traffic.totalRequests += 1;
  if (!expected) {
    traffic.totalErrors += 1;
    const key = `${status} ${op}`;
    traffic.errorsByStatus.set(key, (traffic.errorsByStatus.get(key) ?? 0) + 1);
    if (traffic.errorSamples.length < 20) {
      traffic.errorSamples.push(`${op} → ${status}: ${detail.slice(0, 300)}`);
    }
  }
}

interface Reply {
  status: number;
  body: unknown;
}

/** One request; records it under `op`; `expected` lists the statuses that are not errors. */
export async function request(
  op: string,
  method: string,
  path: string,
  init: { token?: string; json?: unknown; expected?: number[] } = {},
): Promise<Reply | null> {
  const reply = await call(traffic.baseUrl, method, path, {
    token: init.token,
    json: init.json,
    timeoutMs: 30_000,
  });
  if (reply.status === null) {
    // No response: the connection failed or timed out.
    record(op, reply.error ?? 'ERROR', reply.ms, false, reply.error ?? '');
    return null;
  }
  const { status, body } = reply;
  const graphqlErrors =
    path === '/graphql' && Array.isArray((body as { errors?: unknown } | null)?.errors);
  const expected = (init.expected ?? [200]).includes(status) && !graphqlErrors;
  record(
    op,
    String(status),
    reply.ms,
    expected,
    typeof body === 'string' ? body : JSON.stringify(body),
  );
  return { status, body };
}
