import type { Logger } from 'pino';
import type { Row } from '../sql/rows';
import {
  AFTER,
  changeOf,
  COLUMNS,
  cursorOfRow,
  IN_ORDER,
  type LoggedChange,
  LOG_START,
  placeParams,
  SETTLED,
} from './change-log';

/** Runs one statement (`$n` placeholders) on the feed's connection; rejects when it has none. */
export type FeedQuery = (text: string, values: readonly unknown[]) => Promise<Row[]>;

export interface ChangeFeedOptions {
  query: FeedQuery;
  /** Each change, in the log's order, once. */
  deliver: (change: LoggedChange) => void;
  logger: Logger;
  /** The longest a change waits when no wake-up comes (a lost notice, a crashed writer). */
  pollMs?: number;
}

/** Rows read at a time. */
const BATCH = 500;
/**
 * How long a wake-up waits for others to share its read: under a stream of writes one read per
 * few milliseconds rather than one per commit (measured: a read per commit cost the writes
 * scenario 20% more Node CPU per request).
 */
const COALESCE_MS = 5;
/** How soon to look again while a transaction that began earlier is still running. */
const UNSETTLED_RETRY_MS = 20;

// `$n` placeholders for the feed's own pg connection (SETTLED's and AFTER's `?` are rewritten).
const numbered = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${(n += 1)}`);
};
const NEXT = numbered(
  `select ${COLUMNS}, (${SETTLED}) as "settled" from "change_log" c ` +
    `where ${AFTER} ${IN_ORDER} limit ${BATCH}`,
);
/** The newest change no running transaction can precede (the feed starts after it). */
const NEWEST_SETTLED_SQL =
  `select c."tx"::text as "tx", c."position"::text as "position", true as "settled" ` +
  `from "change_log" c where ${SETTLED} order by c."tx" desc, c."position" desc limit 1`;
const NEWEST_SETTLED = numbered(NEWEST_SETTLED_SQL);
/**
 * In one snapshot: the newest settled change, and every change after it that has committed all
 * the same (the horizon is the server's: any transaction on it, of any database, holds it back).
 */
const START = numbered(
  `(${NEWEST_SETTLED_SQL}) union all (select c."tx"::text, c."position"::text, false ` +
    `from "change_log" c where not (${SETTLED}))`,
);

/** Where a subscription starting now begins (see {@link ChangeFeed.startingPoint}). */
export interface StartingPoint {
  /** The newest settled change: nothing at or before it is the subscription's to hear. */
  after: string;
  /** The changes after `after` already committed when it began: not its to hear either. */
  committed: ReadonlySet<string>;
}

/**
 * This instance's reader of the change log: from where it stood when it started, it delivers
 * every change once, in order, as soon as no running transaction can still precede it. It reads
 * when woken (a commit's notice, a reconnect, a local write) and at least every `pollMs`, so a
 * lost notice delays changes but never loses them; an outage of the database only pauses it.
 */
export class ChangeFeed {
  #position = LOG_START;
  #reading: Promise<void> | null = null;
  #again = false;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #soon: NodeJS.Timeout | null = null;

  constructor(private readonly options: ChangeFeedOptions) {}

  /** The cursor of the last change delivered (subscribers replay up to it, then go live). */
  get position(): string {
    return this.#position;
  }

  /** Starts after the newest settled change: earlier ones are replayed by subscribers who ask. */
  async start(): Promise<void> {
    this.#position = await this.queryNewest();
    this.schedule(this.options.pollMs ?? 1_000);
  }

  /**
   * What a subscription starting now has already missed (it hears what comes after): the changes
   * up to the newest one no running transaction can precede, and those after it that have
   * committed. A change that commits later may still take a place before one of those (its
   * transaction began earlier), so the start is not one cursor. The feed's own position, if the
   * log cannot be read.
   */
  async startingPoint(): Promise<StartingPoint> {
    try {
      const rows = await this.options.query(START, []);
      const settled = rows.find((row) => row['settled'] === true);
      return {
        after: settled ? cursorOfRow(settled) : LOG_START,
        committed: new Set(rows.filter((row) => row['settled'] !== true).map(cursorOfRow)),
      };
    } catch {
      return { after: this.#position, committed: new Set() };
    }
  }

  private async queryNewest(): Promise<string> {
    const [newest] = await this.options.query(NEWEST_SETTLED, []);
    return newest ? cursorOfRow(newest) : LOG_START;
  }

  /**
   * Reads what is new, within {@link COALESCE_MS} (or right after the read under way): the
   * wake-ups of the commits of those few milliseconds share one read.
   */
  wake(): void {
    if (this.#closed || this.#soon) {
      return;
    }
    this.#soon = setTimeout(() => {
      this.#soon = null;
      this.readNow();
    }, COALESCE_MS);
  }

  private readNow(): void {
    if (this.#closed) {
      return;
    }
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = this.read().finally(() => {
      this.#reading = null;
      if (this.#again) {
        this.#again = false;
        this.readNow();
      }
    });
  }

  close(): void {
    this.#closed = true;
    if (this.#soon) {
      clearTimeout(this.#soon);
      this.#soon = null;
    }
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
  }

  private schedule(ms: number): void {
    if (this.#closed) {
      return;
    }
    if (this.#timer) {
      clearTimeout(this.#timer);
    }
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.readNow();
    }, ms);
    this.#timer.unref();
  }

  private async read(): Promise<void> {
    let next = this.options.pollMs ?? 1_000;
    try {
      for (;;) {
        const rows = await this.options.query(NEXT, placeParams(this.#position));
        let unsettled = false;
        for (const row of rows) {
          if (row['settled'] !== true) {
            unsettled = true;
            break;
          }
          const change = changeOf(row);
          this.#position = change.cursor;
          this.options.deliver(change);
        }
        if (unsettled) {
          next = UNSETTLED_RETRY_MS;
          break;
        }
        if (rows.length < BATCH) {
          break;
        }
      }
    } catch (error) {
      // The connection is gone or going: its return wakes the feed again.
      this.options.logger.debug({ component: 'events', err: error }, 'change log not read');
    }
    this.schedule(next);
  }
}
