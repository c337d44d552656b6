import type { StartingPoint } from './change-feed';
import { compareCursors } from './change-log';

/** What a mapping answers to end the stream (the subscriber may no longer see its events). */
export const END_OF_STREAM = Symbol('end of stream');

/** Turns a notice into what the subscriber receives: a value, null to skip it, or the end. */
export type NoticeMapper<T, N> = (notice: N) => Promise<T | null | typeof END_OF_STREAM>;

/** Where a resumed stream starts: the changes after `after`, read a page at a time, up to live. */
export interface Resume<N> {
  after: string;
  /** The next page of changes after a cursor, up to `upTo` (inclusive); empty at the end. */
  replay: (after: string, upTo: string) => Promise<N[]>;
}

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
  /**
   * What the subscriber missed: replayed first, up to `upTo`, then the live notices after it (a
   * notice at or before `upTo` heard live, handed on late by a relay, is the replay's).
   */
  resume?: Resume<N> & { upTo: string };
  /**
   * For a stream without `resume`: where it starts (a change made before it began, still on its
   * way to this instance when it began, is not its to hear). Notices at or before it, and those
   * already committed when it began, are dropped.
   */
  startAfter?: Promise<StartingPoint>;
}

/**
 * One subscription's events: the notices of its topic queued (at most `capacity` of them) and
 * mapped one at a time as the subscriber asks for them. Written by hand, not as an async
 * generator, so `return()` ends it at once even while it waits for the next notice.
 */
export class EventStream<T, N extends { cursor: string }> implements AsyncIterableIterator<T> {
  private readonly queue: N[] = [];
  /** The replayed page being handed out, and where the next page starts (null: replay done). */
  private replayed: N[] = [];
  private replayFrom: string | null;
  /** Where the stream starts, once known (see `startAfter`). */
  private floor: StartingPoint | null = null;
  private waiting: ((notice: N | null) => void) | null = null;
  private ended = false;
  private readonly stopListening: () => void;

  constructor(private readonly options: EventStreamOptions<T, N>) {
    this.replayFrom = options.resume?.after ?? null;
    this.stopListening = options.listen((notice) => this.push(notice));
  }

  /** Whether a notice came before the stream began (see `startAfter`). */
  private beforeStart(notice: N, floor: StartingPoint): boolean {
    return compareCursors(notice.cursor, floor.after) <= 0 || floor.committed.has(notice.cursor);
  }

  private push(notice: N): void {
    const { resume } = this.options;
    if (
      this.ended ||
      (this.floor !== null && this.beforeStart(notice, this.floor)) ||
      (resume && compareCursors(notice.cursor, resume.upTo) <= 0)
    ) {
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

  /** Whether the stream has ended (however it ended). */
  get isEnded(): boolean {
    return this.ended;
  }

  /** Resolves once the stream knows where it starts (see `startAfter`); what came before goes. */
  async started(): Promise<void> {
    if (!this.options.startAfter || this.floor !== null) {
      return;
    }
    const floor = await this.options.startAfter;
    this.floor = floor;
    const kept = this.queue.filter((notice) => !this.beforeStart(notice, floor));
    this.queue.splice(0, this.queue.length, ...kept);
  }

  private async take(): Promise<N | null> {
    if (this.ended) {
      return null;
    }
    const resume = this.options.resume;
    while (resume && this.replayFrom !== null && this.replayed.length === 0) {
      const page = await resume.replay(this.replayFrom, resume.upTo);
      const last = page[page.length - 1];
      this.replayFrom = last ? last.cursor : null;
      this.replayed = page;
    }
    const replayed = this.replayed.shift();
    if (replayed) {
      return replayed;
    }
    const next = this.queue.shift();
    if (next) {
      return next;
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
