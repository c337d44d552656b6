import { createClient, type Client } from 'graphql-ws';
import { Client as PgClient } from 'pg';
import WebSocket from 'ws';
import { LISTENER_APPLICATION_NAME } from '../../src/platform/live/notice-listener';
import { signAccessToken } from '../lib/jwt';
import { metricSum, metricsOf } from '../lib/metrics';
import type { Server } from '../lib/processes';
import { KEYS, TOKENS } from './targets';

// What the passes with subscribers share (run/events-pass.ts, run/resume-pass.ts): a user's
// subscription over graphql-ws, the service's count of active subscriptions, and the cut of its
// event listener's connection.

/** Sockets opened at a time. */
export const CONNECT_BATCH = 100;

/** The service's `graphql_subscriptions_active`, read from its /metrics. */
export async function activeSubscriptions(service: Server): Promise<number> {
  return metricSum((await metricsOf(service)) ?? '', 'graphql_subscriptions_active');
}

/** Waits until the service counts `count` subscriptions running (at least, or at most). */
export async function untilActive(
  service: Server,
  count: number,
  direction: 'up' | 'down' = 'up',
): Promise<void> {
  for (;;) {
    const active = await activeSubscriptions(service);
    if (direction === 'up' ? active >= count : active <= count) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What one subscriber hears: each result, and the end of its socket (with the close code). */
export interface SubscriberHandlers<T> {
  next: (data: T) => void;
  /** The socket closed (by either side; not called after `dispose`). */
  closed?: (code: number) => void;
}

/**
 * A socket of `userId` to the service (a token the harness signs) carrying one subscription;
 * no retries of graphql-ws's own (a pass that resumes does it itself, with its cursor).
 */
export function subscribe<T>(
  service: Server,
  userId: string,
  request: { query: string; variables?: Record<string, unknown> },
  handlers: SubscriberHandlers<T>,
): Client {
  let disposed = false;
  const client: Client = createClient({
    url: `${service.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    connectionParams: { Authorization: `Bearer ${signAccessToken(KEYS, TOKENS, userId)}` },
    onNonLazyError: () => undefined,
    on: {
      closed: (event) => {
        if (!disposed) {
          handlers.closed?.((event as { code?: number }).code ?? 0);
        }
      },
    },
  });
  client.subscribe<T>(request, {
    next: (result) => {
      if (result.data) {
        handlers.next(result.data);
      }
    },
    error: () => undefined,
    complete: () => undefined,
  });
  const dispose = client.dispose.bind(client);
  client.dispose = () => {
    disposed = true;
    return dispose();
  };
  return client;
}

/**
 * Ends the service's event-listener connection from the server side (as a database restart or a
 * failover would); answers how many backends were ended.
 */
export async function terminateListener(dbUrl: string): Promise<number> {
  const admin = new PgClient({ connectionString: dbUrl });
  await admin.connect();
  try {
    const ended = await admin.query(
      // This database's listeners only: other databases' services on the server are not ours.
      `select pg_terminate_backend(pid) from pg_stat_activity
       where application_name = $1 and datname = current_database()`,
      [LISTENER_APPLICATION_NAME],
    );
    return ended.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}
