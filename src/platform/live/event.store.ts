import type { EntityManager } from '@mikro-orm/postgresql';
import { executeRows } from '../sql/rows';

/** The PostgreSQL channel every instance listens on for committed changes. */
export const EVENTS_CHANNEL = 'meeting_events';

/**
 * Publishes change notices through PostgreSQL NOTIFY. Sent inside the transaction that makes the
 * change, a notice reaches listeners only when (and if) that transaction commits, in commit
 * order: no event for a change rolled back, no change without its event.
 */
export class EventStore {
  constructor(private readonly em: EntityManager) {}

  async publish(notices: readonly object[]): Promise<void> {
    if (notices.length === 0) {
      return;
    }
    await executeRows(
      this.em,
      // One statement for every notice: each element of the JSON array is one notice's payload.
      'select pg_notify(?, notice::text) from json_array_elements(?::json) as notice',
      [EVENTS_CHANNEL, JSON.stringify(notices)],
    );
  }
}
