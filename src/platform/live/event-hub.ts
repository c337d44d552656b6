type Listener<N> = (notice: N) => void;

/** Hears whose sign-in sessions ended: a user id, or null when it may be anyone's. */
type SessionWatcher = (userId: string | null) => void;

/**
 * This instance's subscribers, by topic: where a notice heard from the database is delivered; and
 * its open connections' watchers, told when sign-in sessions end.
 */
export class EventHub<N> {
  private readonly listeners = new Map<string, Set<Listener<N>>>();
  private readonly sessionWatchers = new Set<SessionWatcher>();

  /** @param topicsOf the local topics a notice is delivered on */
  constructor(private readonly topicsOf: (notice: N) => readonly string[]) {}

  /** Hears `topic`'s notices until the returned function is called. */
  on(topic: string, listener: Listener<N>): () => void {
    const set = this.listeners.get(topic) ?? new Set<Listener<N>>();
    set.add(listener);
    this.listeners.set(topic, set);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(topic) === set) {
        this.listeners.delete(topic);
      }
    };
  }

  /** Hands a notice to every listener of its topics. */
  deliver(notice: N): void {
    for (const topic of this.topicsOf(notice)) {
      for (const listener of this.listeners.get(topic) ?? []) {
        listener(notice);
      }
    }
  }

  /** Hears that sessions ended until the returned function is called. */
  onSessionsEnded(watcher: SessionWatcher): () => void {
    this.sessionWatchers.add(watcher);
    return () => this.sessionWatchers.delete(watcher);
  }

  /**
   * Tells the watchers that sessions of `userId` ended; null when notices may have been missed
   * (the listener was away), so that any open connection's session may have ended.
   */
  sessionsEnded(userId: string | null): void {
    for (const watcher of this.sessionWatchers) {
      watcher(userId);
    }
  }
}
