/** One message of an event stream: its event name and its parsed data. */
export interface StreamMessage {
  event: string;
  data: unknown;
}

/**
 * A subscription request to /graphql/stream (graphql-sse, distinct connections) held open, its
 * messages parsed as they arrive; `ended` settles when the server ends the stream.
 */
export class EventStreamClient {
  readonly messages: StreamMessage[] = [];
  /** The `id` of each message that had one, in order (an event's cursor). */
  readonly ids: string[] = [];
  private readonly abort = new AbortController();
  status = 0;
  body: unknown = null;
  /** Resolves when the stream ends (the server closed it, or `close` was called). */
  readonly ended: Promise<void>;
  private onEnd: () => void = () => undefined;

  constructor() {
    this.ended = new Promise<void>((resolve) => (this.onEnd = resolve));
  }

  async open(
    url: string,
    token: string | undefined,
    query: string,
    variables: Record<string, unknown> = {},
    lastEventId?: string,
  ): Promise<this> {
    const response = await fetch(`${url}/graphql/stream`, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
      body: JSON.stringify({ query, variables }),
      signal: this.abort.signal,
    });
    this.status = response.status;
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      this.body = await response.json();
      this.onEnd();
      return this;
    }
    void this.read(response)
      .catch(() => undefined)
      .finally(() => this.onEnd());
    return this;
  }

  private async read(response: Response): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        const id = /^id: (.*)$/m.exec(block)?.[1];
        if (id !== undefined) {
          this.ids.push(id);
        }
        if (event) {
          this.messages.push({ event, data: data ? JSON.parse(data) : null });
        }
        end = buffer.indexOf('\n\n');
      }
    }
  }

  async received(count: number, ms = 2_000): Promise<StreamMessage[]> {
    const deadline = Date.now() + ms;
    while (this.messages.length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.messages;
  }

  close(): void {
    this.abort.abort();
  }
}
