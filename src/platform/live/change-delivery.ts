import type { Logger } from 'pino';
import type { LiveMetrics } from '../observability/metrics';
import { ChangeFeed, type StartingPoint } from './change-feed';
import type { LoggedChange, Placed } from './change-log';
import { EventHub } from './event-hub';
import type { TableWatch } from '../answer-cache/table-watch';
import { NoticeListener } from './notice-listener';

export interface ChangeDeliveryOptions<N extends Placed> {
  /** A URL with a session of its own (LISTEN): DATABASE_DIRECT_URL behind a pooler. */
  url: string;
  logger: Logger;
  metrics: LiveMetrics | null;
  /** A change as the modules' subscriptions hear it (what its references mean to them). */
  noticeOf: (change: LoggedChange) => N;
  /** The local topics a change is delivered on. */
  topicsOf: (notice: N) => readonly string[];
  /** Pruning of the log past its retention: how often, and the statement that prunes. */
  prune: { everyMs: number; run: () => Promise<number> } | null;
  /** Who hears the tables commits write, on the same connection (the answer cache). */
  tables?: TableWatch | undefined;
}

/** This instance's delivery of changes: subscribers register on `hub`. */
export interface ChangeDelivery<N extends Placed> {
  hub: EventHub<N>;
  /** The cursor of the last change delivered here: a subscriber resuming replays up to it. */
  delivered(): string;
  /** Where a subscription starting now begins: after the changes committed before it began. */
  startingPoint(): Promise<StartingPoint>;
  close(): Promise<void>;
}

/**
 * Starts delivering the change log's changes to this instance's subscribers: one dedicated
 * connection LISTENs for wake-ups (and for ended sessions) and reads the log (ChangeFeed) from
 * where it stood, so a listener that was away delivers what it missed once it is back.
 */
export async function startChangeDelivery<N extends Placed>(
  options: ChangeDeliveryOptions<N>,
): Promise<ChangeDelivery<N>> {
  const { logger, metrics } = options;
  const hub = new EventHub<N>(options.topicsOf);
  let feed: ChangeFeed | null = null;
  const listener = new NoticeListener({
    url: options.url,
    logger,
    onChanges: () => feed?.wake(),
    onSessionsEnded: (userId) => hub.sessionsEnded(userId),
    tables: options.tables,
    onConnectionChange: (state) => {
      if (state === 'lost') {
        metrics?.listenerReconnects.inc();
        return;
      }
      // Sessions may have ended while the listener was away: every connection is checked. And
      // changes may have been logged: the feed reads from where it stood.
      hub.sessionsEnded(null);
      feed?.wake();
    },
  });
  await listener.start();
  const started = new ChangeFeed({
    query: (text, values) => listener.query(text, values),
    deliver: (change) => hub.deliver(options.noticeOf(change)),
    logger,
  });
  await started.start();
  feed = started;
  let pruning: NodeJS.Timeout | null = null;
  const prune = options.prune;
  if (prune) {
    const run = (): void => {
      prune.run().then(
        (pruned) => {
          if (pruned > 0) {
            logger.info({ component: 'events', pruned }, 'change log pruned');
          }
        },
        (error: unknown) =>
          logger.warn({ component: 'events', err: error }, 'change log not pruned'),
      );
    };
    pruning = setInterval(run, prune.everyMs);
    pruning.unref();
    run();
  }
  return {
    hub,
    delivered: () => started.position,
    startingPoint: () => started.startingPoint(),
    async close() {
      if (pruning) {
        clearInterval(pruning);
      }
      started.close();
      await listener.close();
    },
  };
}
