type Listener<N> = (notice: N) => void;

/** A topic's family: what comes before its first `:` (`meeting` of `meeting:<id>`). */
export const familyOf = (topic: string): string => {
  const colon = topic.indexOf(':');
  return colon < 0 ? topic : topic.slice(0, colon);
};

/** Hears whose sign-in sessions ended: a user id, or null when it may be anyone's. */
type SessionWatcher = (userId: string | null) => void;

/**
 * This instance's subscribers, by topic: where a notice heard from the database is delivered; and
 * its open connections' watchers, told when sign-in sessions end.
 */
export class EventHub<N> {
  private readonly listeners = new Map<string, Set<Listener<N>>>();
  /** How many listeners each family of topics has (see `familyOf`). */
  private readonly families = new Map<string, number>();
  private readonly sessionWatchers = new Set<SessionWatcher>();

  /** @param topicsOf the local topics a notice is delivered on */
  constructor(private readonly topicsOf: (notice: N) => readonly string[]) {}

  /** Hears `topic`'s notices until the returned function is called. */
  on(topic: string, listener: Listener<N>): () => void {
    const set = this.listeners.get(topic) ?? new Set<Listener<N>>();
    const family = familyOf(topic);
    // Counted as the set grows and shrinks, so a listener added twice or removed twice counts
    // once, as the set holds it once.
    if (!set.has(listener)) {
      set.add(listener);
      this.families.set(family, (this.families.get(family) ?? 0) + 1);
    }
    this.listeners.set(topic, set);
    return () => {
      if (!set.delete(listener)) {
        return;
      }
      if (set.size === 0 && this.listeners.get(topic) === set) {
        this.listeners.delete(topic);
      }
      const left = (this.families.get(family) ?? 1) - 1;
      if (left === 0) {
        this.families.delete(family);
      } else {
        this.families.set(family, left);
      }
    };
  }

  /** Hands a notice to every listener of its topics. */
  deliver(notice: N): void {
    for (const topic of this.topicsOf(notice)) {
      this.deliverOn(topic, notice);
    }
  }

  /** Hands a notice to the listeners of one topic (a relay's, see audience-relay.ts). */
  deliverOn(topic: string, notice: N): void {
    for (const listener of this.listeners.get(topic) ?? []) {
      listener(notice);
    }
  }

  /** How many listeners the topics of `family` have. */
  listenersIn(family: string): number {
    return this.families.get(family) ?? 0;
  }

  /** The topics of `family` that have listeners now. */
  topicsIn(family: string): string[] {
    return [...this.listeners.keys()].filter((topic) => familyOf(topic) === family);
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
