import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { compareCursors } from '../../src/platform/live/change-log';
import type { Member } from './people';

/*
 * The fleet run's subscribers: each a user's `myMeetingEvents` over WebSocket (graphql-ws) or
 * Server-Sent Events (POST /graphql/stream), through the balancer. Whenever its connection ends
 * (a host killed or cut, a drain, the service closing it), it connects again, to whichever host
 * the balancer picks, with `after: <the last cursor it received>`, as a client that must not miss
 * an event does. It keeps every cursor it received, to be checked against the change log.
 */

const EVENTS = 'subscription ($after: String) { myMeetingEvents(after: $after) { cursor } }';
/** A connection that ended is opened again after this, plus as much again at random. */
const RECONNECT_MS = 250;
/** A stream that carried nothing for this long is taken for dead (a cut host never closes it). */
const SILENT_MS = 15_000;

export type Transport = 'websocket' | 'sse';

export class Subscriber {
  readonly received: string[] = [];
  duplicates = 0;
  /** Each cursor received again, and on which connection (counted from 1). */
  readonly twice: { cursor: string; connection: number }[] = [];
  outOfOrder = 0;
  /** Connections opened (the first included). */
  connections = 0;
  private last: string;
  private readonly seen = new Set<string>();
  private running = false;
  private stopCurrent: (() => void) | null = null;
  private heardAt = 0;

  constructor(
    private readonly baseUrl: string,
    readonly member: Member,
    readonly transport: Transport,
    /** Where it starts: after this cursor. */
    from: string,
  ) {
    this.last = from;
  }

  start(): void {
    this.running = true;
    this.open();
  }

  stop(): void {
    this.running = false;
    this.stopCurrent?.();
    this.stopCurrent = null;
  }

  /** True when a connection carried nothing for SILENT_MS: it is dropped and opened again. */
  checkSilence(now: number): void {
    if (this.running && this.stopCurrent && now - this.heardAt > SILENT_MS) {
      this.ended();
    }
  }

  private open(): void {
    this.connections += 1;
    this.heardAt = performance.now();
    // Always with `after` (the log's start, at first): without it, a subscription hears only
    // the changes made once it is running, and the first connection may come late.
    const after = this.last;
    this.stopCurrent =
      this.transport === 'websocket' ? this.openSocket(after) : this.openStream(after);
  }

  private receive(cursor: string): void {
    this.heardAt = performance.now();
    if (this.seen.has(cursor)) {
      this.duplicates += 1;
      this.twice.push({ cursor, connection: this.connections });
      return;
    }
    this.seen.add(cursor);
    this.received.push(cursor);
    if (compareCursors(cursor, this.last) < 0) {
      this.outOfOrder += 1;
    } else {
      this.last = cursor;
    }
  }

  /** The current connection is over: another after a moment, unless stopped. */
  private ended(): void {
    const stop = this.stopCurrent;
    if (!stop) {
      return;
    }
    this.stopCurrent = null;
    stop();
    if (this.running) {
      setTimeout(
        () => {
          if (this.running && this.stopCurrent === null) {
            this.open();
          }
        },
        RECONNECT_MS * (1 + Math.random()),
      );
    }
  }

  private openSocket(after: string): () => void {
    let done = false;
    const client: Client = createClient({
      url: `${this.baseUrl.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 0,
      connectionParams: { Authorization: `Bearer ${this.member.token}` },
      onNonLazyError: () => undefined,
      on: { closed: () => !done && this.ended() },
    });
    client.subscribe<{ myMeetingEvents: { cursor: string } }>(
      { query: EVENTS, variables: { after } },
      {
        next: (result) => {
          // A message of a connection it has left (dropped for silence) is not heard.
          if (result.data && !done) {
            this.receive(result.data.myMeetingEvents.cursor);
          }
        },
        error: () => !done && this.ended(),
        complete: () => !done && this.ended(),
      },
    );
    return () => {
      done = true;
      void Promise.resolve(client.dispose()).catch(() => undefined);
    };
  }

  private openStream(after: string): () => void {
    const abort = new AbortController();
    void this.readStream(after, abort.signal)
      .catch(() => undefined)
      .finally(() => !abort.signal.aborted && this.ended());
    return () => abort.abort();
  }

  private async readStream(after: string, signal: AbortSignal): Promise<void> {
    const response = await fetch(`${this.baseUrl}/graphql/stream`, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${this.member.token}`,
      },
      body: JSON.stringify({ query: EVENTS, variables: { after } }),
      signal,
    });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      this.heardAt = performance.now();
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (/^event: next$/m.test(block) && data) {
          const cursor = (JSON.parse(data) as { data?: { myMeetingEvents?: { cursor: string } } })
            .data?.myMeetingEvents?.cursor;
          if (cursor && !signal.aborted) {
            this.receive(cursor);
          }
        }
      }
    }
  }
}

/** Watches every subscriber's silence until stopped. */
export function watchSilence(subscribers: readonly Subscriber[]): () => void {
  const timer = setInterval(() => {
    const now = performance.now();
    for (const subscriber of subscribers) {
      subscriber.checkSilence(now);
    }
  }, 1_000);
  return () => clearInterval(timer);
}
