/**
 * Who hears which tables commits write, on the database's channel `channel` (the event listener's
 * connection listens to it, src/platform/live/notice-listener.ts).
 */
export interface TableWatch {
  channel: string;
  /** A commit wrote `table`. */
  changed(table: string): void;
  /** The channel is heard, from now on (at the start, and again after a loss). */
  heard(): void;
  /** The channel is not heard (the connection was lost): notices may be missed. */
  deaf(): void;
}
