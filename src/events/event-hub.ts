import { type ChangeNotice, topicsOf } from './meeting-event';

type Listener = (notice: ChangeNotice) => void;

/** This instance's subscribers, by topic: where a notice heard from the database is delivered. */
export class EventHub {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** Hears `topic`'s notices until the returned function is called. */
  on(topic: string, listener: Listener): () => void {
    const set = this.listeners.get(topic) ?? new Set<Listener>();
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
  deliver(notice: ChangeNotice): void {
    for (const topic of topicsOf(notice)) {
      for (const listener of this.listeners.get(topic) ?? []) {
        listener(notice);
      }
    }
  }
}
