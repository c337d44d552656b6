import type { NoticeMapper, Resume } from './event-stream';

/**
 * What a subscription's context holds besides a request's: the events of its WebSocket (notices `N`). Before
 * each notice is mapped, the context is renewed (a fresh entity manager and loaders, the caller
 * read again), so each event is read as its subscriber may see it at that moment.
 */
export interface LiveScope<N> {
  /** The notices of `topic`, mapped; resumed: first those missed since `resume.after`. */
  stream<T>(
    topic: string,
    map: NoticeMapper<T, N>,
    resume?: Resume<N>,
  ): Promise<AsyncIterableIterator<T>>;
}
