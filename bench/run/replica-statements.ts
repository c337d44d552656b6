import type { Server } from '../lib/processes';
import { readRequests, type ReplicaKey } from '../lib/scenarios';
import { countedBetween, type StatementCounts, StatementProxy } from '../lib/statement-proxy';
import { LISTENER_APPLICATION_NAME } from '../../src/platform/live/notice-listener';
import { checkEquality } from './equality';
import { type BenchContext, prepareContext } from './prepare';
import { startService } from './targets';

// --replica's counting start: the service behind a counting proxy on the primary and one on the
// replica (lib/statement-proxy.ts), its answers checked against the baseline's, then each
// scenario's requests one at a time, to tell how many statements of a request each server ran.
// db_reads_total counts the statements of the query operation only; the caller's sign-in check
// and the lookup of its last write position go to the primary outside it. The proxies add a hop to
// every statement: never used for timed runs.

/** How long the idle rate is read. */
const IDLE_MS = 3_000;
/** Each scenario's requests are sent again until at least this many and this long. */
const LEAST_REQUESTS = 40;
const LEAST_MS = 1_000;

/** Statements per request of one scenario, by the server that ran them. */
export interface ServerStatements {
  primary: number;
  replica: number;
  /** What db_reads_total counted per request (all of it on the replica when it is healthy). */
  reads: number;
  /** The service's own count per request (its `sqlStatements` log field: the ORM's statements). */
  logged: number;
}

/**
 * Statements sent by requests' connections: all but the event listener's and the background
 * work's (`meetings-background:…`), BEGIN/COMMIT apart (and not counted, as elsewhere).
 */
function requestStatements(counts: ReadonlyMap<string, StatementCounts>): number {
  let statements = 0;
  for (const [name, c] of counts) {
    if (name !== LISTENER_APPLICATION_NAME && !name.startsWith('meetings-background')) {
      statements += c.statements;
    }
  }
  return statements;
}

/** Both proxies' counts now. */
const snapshots = (proxies: readonly StatementProxy[]): Map<string, StatementCounts>[] =>
  proxies.map((p) => p.snapshot());

/**
 * Starts the service behind counting proxies (LOG_LEVEL=info), checks its answers against the
 * baseline's, and counts each scenario's statements per request on each server, less what the
 * service sends while idle (the replica watcher's positions, the job queue's polls).
 */
export async function countByServer(
  urls: { primary: string; replica: string },
  baseline: Server,
  keys: readonly ReplicaKey[],
  readCounts: (service: Server) => Promise<{ primary: number; replica: number }>,
  untilSeen: (service: Server) => Promise<void>,
): Promise<Map<ReplicaKey, ServerStatements>> {
  const proxies = [
    await StatementProxy.start(urls.primary),
    await StatementProxy.start(urls.replica),
  ];
  const [primary, replica] = proxies as [StatementProxy, StatementProxy];
  let service: Server | null = null;
  try {
    service = await startService(primary.url, 'info', {
      name: 'service (replica, counting)',
      env: { DATABASE_READ_URLS: replica.url },
    });
    await untilSeen(service);
    const ctx: BenchContext = await prepareContext(urls.primary, service);
    const { statements: logged } = await checkEquality(ctx, service, baseline, keys, true);
    const idle0 = snapshots(proxies);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = snapshots(proxies).map(
      (after, i) => requestStatements(countedBetween(idle0[i], after)) / IDLE_MS,
    );
    const out = new Map<ReplicaKey, ServerStatements>();
    for (const key of keys) {
      const requests = readRequests(key, ctx);
      // A scrape of the metrics runs a statement of its own (the job queue's): outside the window.
      const readsBefore = await readCounts(service);
      const before = snapshots(proxies);
      const started = performance.now();
      let sent = 0;
      while (sent < LEAST_REQUESTS || performance.now() - started < LEAST_MS) {
        for (const request of requests) {
          const response = await fetch(`${service.url}${request.path}`, {
            method: request.method,
            headers: request.headers,
            ...(request.body !== undefined && { body: request.body }),
          });
          await response.arrayBuffer();
          sent += 1;
        }
      }
      const elapsed = performance.now() - started;
      const after = snapshots(proxies);
      const readsAfter = await readCounts(service);
      const perRequest = (i: number): number =>
        (requestStatements(countedBetween(before[i], after[i])) - idle[i] * elapsed) / sent;
      out.set(key, {
        primary: perRequest(0),
        replica: perRequest(1),
        reads:
          (readsAfter.primary + readsAfter.replica - readsBefore.primary - readsBefore.replica) /
          sent,
        logged: logged.get(key)?.service ?? Number.NaN,
      });
    }
    return out;
  } finally {
    await service?.stop();
    for (const proxy of proxies) {
      await proxy.close();
    }
  }
}
