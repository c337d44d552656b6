import { performance } from 'node:perf_hooks';
import type { Client } from 'graphql-ws';
import { cleanupWrites, readFixtures } from '../lib/db';
import { mib } from '../lib/format';
import { signAccessToken } from '../lib/jwt';
import { memoryOf, processTree, sampleRss, type Server } from '../lib/processes';
import { quantile } from '../lib/stats';
import { CONNECT_BATCH, subscribe, terminateListener, untilActive } from './live-clients';
import { log } from './progress';
import { KEYS, startService, TOKENS } from './targets';

/*
 * The events scenario: `subscribers` users each hold a WebSocket to one service instance with an
 * `invitationReceived` subscription; a writer then creates meetings through REST, each inviting
 * one of them, a few at a time. Measured: the time from the mutation's response reaching the
 * client to the invitation reaching its subscriber (negative when the event came first: it is
 * published at commit, before the response is written), and the service's RSS: at readiness, after
 * a minute with no requests, and with every socket open.
 */

/** The scenario as the benchmark runs it: 1,000 subscribers. */
export const EVENTS: EventsOptions = { subscribers: 1_000, events: 300, concurrency: 4 };

export interface EventsOptions {
  subscribers: number;
  events: number;
  /** Mutations in flight at a time. */
  concurrency: number;
}

export interface EventsResult {
  subscribers: number;
  events: number;
  delivered: number;
  /** Milliseconds from the mutation's response to delivery. */
  latency: { p50: number; p99: number; max: number };
  /** Seconds to open every socket and start every subscription. */
  connectSeconds: number;
  /**
   * Bytes: at readiness (start-up's garbage already given back: src/runtime-memory.ts); after
   * {@link IDLE_SECONDS} with no request; with every socket open; the most while sockets were
   * opened and events delivered.
   */
  rss: { ready: number; idle: number; withSockets: number; peak: number };
  /**
   * Right after the service's listener connection was terminated on the server (as a database
   * restart or a failover would): {@link AFTER_RECONNECT_EVENTS} more meetings, made at once;
   * latency as above (it includes the reconnect).
   */
  afterReconnect: { events: number; delivered: number; p50: number; p99: number; max: number };
}

/** Events made right after the listener's connection is cut. */
const AFTER_RECONNECT_EVENTS = 50;

/** How long the service is left without requests before its idle RSS is read. */
export const IDLE_SECONDS = 60;

/** How long one event may take before it counts as lost. */
const EVENT_TIMEOUT_MS = 5_000;

const INVITATIONS = 'subscription { invitationReceived { meetingId } }';

/** Arrival times of invitations by meeting id, and waiters for those not arrived yet. */
class Arrivals {
  private readonly times = new Map<string, number>();
  private readonly waiters = new Map<string, (at: number) => void>();

  record(meetingId: string): void {
    const at = performance.now();
    this.times.set(meetingId, at);
    this.waiters.get(meetingId)?.(at);
  }

  wait(meetingId: string): Promise<number | null> {
    const known = this.times.get(meetingId);
    if (known !== undefined) {
      return Promise.resolve(known);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), EVENT_TIMEOUT_MS);
      this.waiters.set(meetingId, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }
}

function openSubscribers(service: Server, userIds: readonly string[], arrivals: Arrivals) {
  return userIds.map((userId) =>
    subscribe<{ invitationReceived: { meetingId: string } }>(
      service,
      userId,
      { query: INVITATIONS },
      { next: (data) => arrivals.record(data.invitationReceived.meetingId) },
    ),
  );
}

/** Creates one meeting inviting `userId`; answers its id and when the response arrived. */
async function invite(
  service: Server,
  writerToken: string,
  userId: string,
  n: number,
): Promise<{ meetingId: string; answeredAt: number }> {
  const response = await fetch(`${service.url}/api/v1/meeting/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${writerToken}` },
    body: JSON.stringify({
      meeting: {
        title: `Bench event ${n}`,
        start_time: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        location: 'Bench Room',
      },
      participants: [{ user_id: userId }],
    }),
  });
  const body = (await response.json()) as { id?: string };
  const answeredAt = performance.now();
  if (response.status !== 201 || !body.id) {
    throw new Error(`meeting/create answered ${response.status}`);
  }
  return { meetingId: body.id, answeredAt };
}

export async function eventsPass(dbUrl: string, options: EventsOptions): Promise<EventsResult> {
  const fixtures = await readFixtures(dbUrl, options.subscribers);
  if (fixtures.invitees.length < options.subscribers) {
    throw new Error(`only ${fixtures.invitees.length} users to subscribe`);
  }
  const service = await startService(dbUrl, 'warn', {
    env: { SOCKETS_PER_USER: '1', SUBSCRIPTIONS_PER_SOCKET: '1' },
  });
  const arrivals = new Arrivals();
  const clients: Client[] = [];
  try {
    const pids = processTree(service.child.pid as number);
    const ready = memoryOf(pids).rss;
    log(`  service ready at ${mib(ready)}; ${IDLE_SECONDS} s without requests`);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1_000));
    const idle = memoryOf(pids).rss;
    const rss = sampleRss(service.child.pid as number, 200);
    const connectStart = performance.now();
    for (let i = 0; i < options.subscribers; i += CONNECT_BATCH) {
      const batch = fixtures.invitees.slice(i, Math.min(i + CONNECT_BATCH, options.subscribers));
      clients.push(...openSubscribers(service, batch, arrivals));
      await untilActive(service, clients.length);
    }
    const connectSeconds = (performance.now() - connectStart) / 1000;
    log(`  ${clients.length} subscribers connected in ${connectSeconds.toFixed(1)} s`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const withSockets = memoryOf(pids).rss;

    const writerToken = signAccessToken(KEYS, TOKENS, fixtures.writerId);
    const latencies: number[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < options.events) {
        const n = next;
        next += 1;
        const userId = fixtures.invitees[n % options.subscribers] as string;
        const { meetingId, answeredAt } = await invite(service, writerToken, userId, n);
        const deliveredAt = await arrivals.wait(meetingId);
        if (deliveredAt !== null) {
          latencies.push(deliveredAt - answeredAt);
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    const sorted = Float64Array.from(latencies).sort();

    // The listener's connection cut on the server; meetings made at once, while it reconnects.
    const ended = await terminateListener(dbUrl);
    log(`  listener connection terminated (${ended}); 50 meetings at once`);
    const reconnectLatencies: number[] = [];
    let after = 0;
    const afterWorker = async (): Promise<void> => {
      while (after < AFTER_RECONNECT_EVENTS) {
        const n = options.events + after;
        after += 1;
        const userId = fixtures.invitees[n % options.subscribers] as string;
        const { meetingId, answeredAt } = await invite(service, writerToken, userId, n);
        const deliveredAt = await arrivals.wait(meetingId);
        if (deliveredAt !== null) {
          reconnectLatencies.push(deliveredAt - answeredAt);
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, afterWorker));
    const reconnectSorted = Float64Array.from(reconnectLatencies).sort();
    return {
      subscribers: clients.length,
      events: options.events,
      delivered: latencies.length,
      latency: {
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        max: sorted[sorted.length - 1] ?? Number.NaN,
      },
      connectSeconds,
      rss: { ready, idle, withSockets, peak: rss.stop() },
      afterReconnect: {
        events: AFTER_RECONNECT_EVENTS,
        delivered: reconnectLatencies.length,
        p50: quantile(reconnectSorted, 0.5),
        p99: quantile(reconnectSorted, 0.99),
        max: reconnectSorted[reconnectSorted.length - 1] ?? Number.NaN,
      },
    };
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
    await service.stop();
    await cleanupWrites(dbUrl, fixtures.writerId);
  }
}
