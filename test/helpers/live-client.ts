import type { FormattedExecutionResult } from 'graphql';
import { type Client, createClient } from 'graphql-ws';
import { Client as PgClient } from 'pg';
import WebSocket from 'ws';

type ExecutionResult<T> = FormattedExecutionResult<T, unknown>;
import type { AppInstance } from '../../src/app';
import { SETTLED } from '../../src/platform/live/change-log';

/** How a socket ended: its close code and reason. */
export interface Closed {
  code: number;
  reason: string;
}

/** One subscription's results as they arrive, and how it ended. */
export class Subscriber<T = Record<string, unknown>> {
  readonly results: Array<ExecutionResult<T>> = [];
  /** Set once the server completed the subscription (or it failed). */
  ended: { error: unknown } | null = null;
  private waiters: Array<() => void> = [];

  constructor(readonly dispose: () => void) {}

  push(result: ExecutionResult<T>): void {
    this.results.push(result);
    this.wake();
  }

  end(error: unknown = null): void {
    this.ended = { error };
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((wake) => wake());
  }

  /** Waits until `count` results arrived (or the subscription ended), at most `ms`. */
  received(count: number, ms = 2_000): Promise<Array<ExecutionResult<T>>> {
    return this.until(() => this.results.length >= count, ms);
  }

  /** Waits until the subscription ended, at most `ms`. */
  finished(ms = 2_000): Promise<Array<ExecutionResult<T>>> {
    return this.until(() => false, ms);
  }

  private async until(done: () => boolean, ms: number): Promise<Array<ExecutionResult<T>>> {
    const deadline = Date.now() + ms;
    while (!done() && !this.ended && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.results;
  }

  /** The data of every result so far. */
  data(): T[] {
    return this.results.map((result) => result.data as T);
  }
}

/** A graphql-ws client over `ws` on a service's /graphql, signed in with `token` (if any). */
export class LiveClient {
  private constructor(
    private readonly client: Client,
    /** Resolves when the socket closes, with the server's close code. */
    readonly closed: Promise<Closed>,
    readonly acknowledged: Promise<boolean>,
  ) {}

  static open(serviceUrl: string, token?: string): LiveClient {
    let onClosed: (closed: Closed) => void = () => undefined;
    let onAck: (ok: boolean) => void = () => undefined;
    const closed = new Promise<Closed>((resolve) => (onClosed = resolve));
    const acknowledged = new Promise<boolean>((resolve) => (onAck = resolve));
    const client = createClient({
      url: `${serviceUrl.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 0,
      shouldRetry: () => false,
      connectionParams: token ? { Authorization: `Bearer ${token}` } : {},
      on: {
        connected: () => onAck(true),
        closed: (event) => {
          const { code, reason } = event as { code: number; reason: string };
          onAck(false);
          onClosed({ code, reason: String(reason) });
        },
      },
      onNonLazyError: () => undefined,
    });
    return new LiveClient(client, closed, acknowledged);
  }

  subscribe<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
  ): Subscriber<T> {
    const subscriber: Subscriber<T> = new Subscriber<T>(() => dispose());
    const dispose = this.client.subscribe<T>(
      { query, variables },
      {
        next: (result) => subscriber.push(result),
        error: (error) => subscriber.end(error),
        complete: () => subscriber.end(),
      },
    );
    return subscriber;
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

/**
 * For a describe block: a function that opens a client on a service (signed in with `token`, if
 * any); every client it opened is closed after each test.
 */
export function useLiveClients(): (serviceUrl: string, token?: string) => LiveClient {
  const clients: LiveClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  return (serviceUrl, token) => {
    const client = LiveClient.open(serviceUrl, token);
    clients.push(client);
    return client;
  };
}

/** Waits until `instance` runs `count` subscriptions or more (its metrics say so), at most `ms`. */
export function waitForSubscriptions(instance: AppInstance, count: number, ms = 5_000) {
  return waitForActiveSubscriptions(instance, (active) => active >= count, ms);
}

/** Waits until the number of subscriptions `instance` runs satisfies `done`, at most `ms`. */
export async function waitForActiveSubscriptions(
  instance: AppInstance,
  done: (active: number) => boolean,
  ms = 5_000,
): Promise<void> {
  const gauge = instance.metrics?.live.subscriptionsActive;
  if (!gauge) {
    throw new Error('metrics are off: cannot tell when subscriptions are running');
  }
  const deadline = Date.now() + ms;
  for (;;) {
    const active = (await gauge.get()).values[0]?.value ?? 0;
    if (done(active)) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`${active} subscriptions still running after ${ms} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Waits until every change `instance`'s database has logged is settled: no transaction still
 * running on the server can precede it (the server's snapshot horizon is past it). Only then does
 * a subscription starting now begin after them, and may the log be pruned of them. The horizon
 * is the server's, not the database's: a transaction of another database on the same server
 * (another test file's, when files run in parallel) holds it back too.
 */
export async function waitForSettledChanges(instance: AppInstance, ms = 5_000): Promise<void> {
  const admin = new PgClient({ connectionString: instance.database.url });
  await admin.connect();
  try {
    const deadline = Date.now() + ms;
    for (;;) {
      const { rows } = await admin.query<{ pending: boolean }>(
        `select exists (select 1 from "change_log" c where not (${SETTLED})) as "pending"`,
      );
      if (!rows[0]?.pending) {
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`changes logged still unsettled after ${ms} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await admin.end();
  }
}
