/** What a mapping answers to end the stream (the subscriber may no longer see its events). */
export const END_OF_STREAM = Symbol('end of stream');

/** Turns a notice into what the subscriber receives: a value, null to skip it, or the end. */
export type NoticeMapper<T, N> = (notice: N) => Promise<T | null | typeof END_OF_STREAM>;

export interface EventStreamOptions<T, N> {
  /** Starts hearing notices; answers the function that stops. */
  listen: (push: (notice: N) => void) => () => void;
  map: NoticeMapper<T, N>;
  /** Notices held for a subscriber that does not keep up; one more ends the stream. */
  capacity: number;
  /** Called when the stream ends because it overflowed. */
  onOverflow: () => void;
  /** Called once when the stream ends, however it ends. */
  onEnd?: () => void;
}

/**
 * One subscription's events: the notices of its topic queued (at most `capacity` of them) and
 * mapped one at a time as the subscriber asks for them. Written by hand, not as an async
 * generator, so `return()` ends it at once even while it waits for the next notice.
 */
export class EventStream<T, N> implements AsyncIterableIterator<T> {
  private readonly queue: N[] = [];
  private waiting: ((notice: N | null) => void) | null = null;
  private ended = false;
  private readonly stopListening: () => void;

  constructor(private readonly options: EventStreamOptions<T, N>) {
    this.stopListening = options.listen((notice) => this.push(notice));
  }

  private push(notice: N): void {
    if (this.ended) {
      return;
    }
    if (this.waiting) {
      const wake = this.waiting;
      this.waiting = null;
      wake(notice);
      return;
    }
    if (this.queue.length >= this.options.capacity) {
      this.end();
      this.options.onOverflow();
      return;
    }
    this.queue.push(notice);
  }

  private take(): Promise<N | null> {
    if (this.ended) {
      return Promise.resolve(null);
    }
    const next = this.queue.shift();
    if (next) {
      return Promise.resolve(next);
    }
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  private end(): void {
    if (this.ended) {
      return;
    }
    this.ended = true;
    this.queue.length = 0;
    this.stopListening();
    this.waiting?.(null);
    this.waiting = null;
    this.options.onEnd?.();
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    for (;;) {
      const notice = await this.take();
      if (notice === null) {
        return { done: true, value: undefined };
      }
      const value = await this.options.map(notice);
      if (this.ended) {
        return { done: true, value: undefined };
      }
      if (value === END_OF_STREAM) {
        this.end();
        return { done: true, value: undefined };
      }
      if (value !== null) {
        return { done: false, value };
      }
    }
  }

  return(): Promise<IteratorResult<T, undefined>> {
    this.end();
    return Promise.resolve({ done: true, value: undefined });
  }

  throw(error?: unknown): Promise<IteratorResult<T, undefined>> {
    this.end();
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
