import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { signAccessToken } from '../lib/jwt';
import type { Server } from '../lib/processes';
import { KEYS, TOKENS } from './targets';

// A subscriber of the fan-out pass (run/fan-out-pass.ts): a user's `myMeetingEvents` over
// WebSocket (graphql-ws on /graphql) or Server-Sent Events (graphql-sse's distinct connections on
// /graphql/stream), keeping every event with the time it arrived. One that resumes (the slow
// subscriber) opens a new connection with `after: <the last cursor it received>` when the service
// closes its own; it can stop reading its socket (pause) to fall behind.

/** What every subscriber asks for. */
export const EVENTS =
  'subscription ($after: String) { myMeetingEvents(after: $after) { cursor kind meeting { id title } } }';

/** The same with the meeting's description `times` over (aliases): large events. */
export const largeEvents = (times: number): string =>
  'subscription ($after: String) { myMeetingEvents(after: $after) { cursor kind meeting { id title ' +
  Array.from({ length: times }, (_, i) => `d${i + 1}: description`).join(' ') +
  ' } } }';

export type Transport = 'websocket' | 'sse';

interface EventData {
  myMeetingEvents: { cursor: string; kind: string; meeting: { id: string; title: string } };
}

/** One event as it arrived. */
export interface Receipt {
  cursor: string;
  kind: string;
  meetingId: string;
  title: string;
  /** performance.now() at arrival. */
  at: number;
}

/** A closed connection is opened again after this (a subscriber that resumes). */
const RECONNECT_MS = 100;

export class FanOutSubscriber {
  readonly receipts: Receipt[] = [];
  /** How each connection the service ended was closed: a WebSocket close code, or 'stream end'. */
  readonly closes: string[] = [];
  /** How many events it had received when each of those closes reached it. */
  readonly receivedAtClose: number[] = [];
  /** Errors the service answered (a refused subscription, a stream that did not open). */
  readonly errors: string[] = [];
  /** Connections opened, the first included. */
  connections = 0;
  /** `after` of each connection opened after the first. */
  readonly resumedAfter: (string | null)[] = [];
  private last: string | null = null;
  private leaving = false;
  private stopCurrent: (() => void) | null = null;
  private socket: WebSocket | null = null;

  constructor(
    private readonly service: Server,
    readonly userId: string,
    readonly transport: Transport,
    private readonly options: { query?: string; resume?: boolean } = {},
  ) {}

  /** The cursor of the last event received. */
  get lastCursor(): string | null {
    return this.last;
  }

  open(): void {
    this.connections += 1;
    if (this.connections > 1) {
      this.resumedAfter.push(this.last);
    }
    const token = signAccessToken(KEYS, TOKENS, this.userId);
    const request = {
      query: this.options.query ?? EVENTS,
      variables: { after: this.last },
    };
    this.stopCurrent =
      this.transport === 'websocket'
        ? this.openSocket(token, request)
        : this.openStream(token, request);
  }

  /** Stops reading its socket: the service's writes pile up in the sockets' buffers, then in its queue. */
  pause(): void {
    this.socket?.pause();
  }

  resume(): void {
    this.socket?.resume();
  }

  /** Closes its connection (not counted as closed; no reconnect). */
  leave(): void {
    this.leaving = true;
    this.stopCurrent?.();
    this.stopCurrent = null;
  }

  private receive(event: EventData['myMeetingEvents']): void {
    this.receipts.push({
      cursor: event.cursor,
      kind: event.kind,
      meetingId: event.meeting.id,
      title: event.meeting.title,
      at: performance.now(),
    });
    this.last = event.cursor;
  }

  /** The service ended the connection: noted; a subscriber that resumes opens another. */
  private ended(how: string): void {
    if (this.leaving) {
      return;
    }
    this.closes.push(how);
    this.receivedAtClose.push(this.receipts.length);
    this.stopCurrent = null;
    this.socket = null;
    if (this.options.resume) {
      setTimeout(() => {
        if (!this.leaving && this.stopCurrent === null) {
          this.open();
        }
      }, RECONNECT_MS);
    }
  }

  private openSocket(
    token: string,
    request: { query: string; variables: Record<string, unknown> },
  ): () => void {
    const keep = (socket: WebSocket) => {
      this.socket = socket;
    };
    // The client's socket, kept to pause it.
    class KeptWebSocket extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        keep(this);
      }
    }
    let done = false;
    const client: Client = createClient({
      url: `${this.service.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: KeptWebSocket,
      lazy: false,
      retryAttempts: 0,
      connectionParams: { Authorization: `Bearer ${token}` },
      onNonLazyError: () => undefined,
      on: {
        closed: (event) => {
          if (!done) {
            done = true;
            this.ended(String((event as { code?: number }).code ?? 'unknown'));
          }
        },
      },
    });
    client.subscribe<EventData>(request, {
      next: (result) => {
        if (result.data) {
          this.receive(result.data.myMeetingEvents);
        } else if (result.errors) {
          this.errors.push(JSON.stringify(result.errors).slice(0, 200));
        }
      },
      error: (error: unknown) => {
        // A close shows here too (as its event); what is not a close is an error of the service.
        if (!(error && typeof error === 'object' && 'code' in error)) {
          this.errors.push(error instanceof Error ? error.message : JSON.stringify(error));
        }
      },
      complete: () => undefined,
    });
    return () => {
      done = true;
      void Promise.resolve(client.dispose()).catch(() => undefined);
    };
  }

  private openStream(
    token: string,
    request: { query: string; variables: Record<string, unknown> },
  ): () => void {
    const abort = new AbortController();
    this.readStream(token, request, abort.signal).then(
      () => !abort.signal.aborted && this.ended('stream end'),
      (error: unknown) => {
        if (!abort.signal.aborted) {
          this.errors.push(error instanceof Error ? error.message : String(error));
          this.ended('stream end');
        }
      },
    );
    return () => abort.abort();
  }

  private async readStream(
    token: string,
    request: { query: string; variables: Record<string, unknown> },
    signal: AbortSignal,
  ): Promise<void> {
    const response = await fetch(`${this.service.url}/graphql/stream`, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(request),
      signal,
    });
    if (!response.ok || !response.body) {
      this.errors.push(`POST /graphql/stream answered ${response.status}`);
      await response.body?.cancel();
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        this.block(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  /** One event-stream block: `event:`, `id:` and `data:` lines (a `:` line is a ping). */
  private block(block: string): void {
    const field = (name: string) => new RegExp(`^${name}: ?(.*)$`, 'm').exec(block)?.[1];
    const event = field('event');
    const data = field('data');
    if (event !== 'next' || data === undefined) {
      return;
    }
    const result = JSON.parse(data) as { data?: EventData; errors?: unknown[] };
    const id = field('id');
    if (result.data) {
      const cursor = result.data.myMeetingEvents.cursor;
      if (id !== undefined && id !== cursor) {
        this.errors.push(`event id ${id} is not its cursor ${cursor}`);
      }
      this.receive(result.data.myMeetingEvents);
    } else if (result.errors) {
      this.errors.push(JSON.stringify(result.errors).slice(0, 200));
    }
  }
}
