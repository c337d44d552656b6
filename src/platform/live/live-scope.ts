import type { NoticeMapper, Resume } from './event-stream';

/** How a subscription hears its topic, besides the mapping of each notice. */
export interface StreamOptions<N> {
  /** Resumed: first the notices missed since `resume.after`. */
  resume?: Resume<N>;
  /**
   * Whether a notice may concern the subscriber at all, judged before the context is renewed
   * for it (which reads the caller again): a notice it rejects is skipped at no cost of the
   * subscriber's own. It must admit every notice `map` could answer a value for.
   */
  admits?: (notice: N) => Promise<boolean>;
}

/**
 * What a subscription's context holds besides a request's: the events of its WebSocket (notices
 * `N`). Before each notice it admits is mapped, the context is renewed (a fresh entity manager
 * and loaders, the caller read again), so each event is read as its subscriber may see it then.
 */
export interface LiveScope<N> {
  /** The notices of `topic`, mapped (see StreamOptions). */
  stream<T>(
    topic: string,
    map: NoticeMapper<T, N>,
    options?: StreamOptions<N>,
  ): Promise<AsyncIterableIterator<T>>;
}
