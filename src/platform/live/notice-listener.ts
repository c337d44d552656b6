import { Client } from 'pg';
import type { TableWatch } from '../answer-cache/table-watch';
import type { Logger } from 'pino';
import { DependencyState } from '../observability/dependency-state';
import type { Row } from '../sql/rows';
import { CHANGES_CHANNEL } from './change-log';
import { SESSION_ENDS_CHANNEL, sessionEndNotice } from './session-end';

/** How the listener's own connection is named in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'meetings-event-listener';

/**
 * Reconnection waits: the first at once (within `first`, at random, so instances that lost the
 * database together do not all come back in the same millisecond), then doubling up to `last`.
 */
const BACKOFF_MS = { first: 50, last: 1_000 };

export interface NoticeListenerOptions {
  url: string;
  logger: Logger;
  /** Each wake-up heard on the change log's channel (a commit that logged changes). */
  onChanges: () => void;
  /** Each user whose sign-in sessions ended, heard on SESSION_ENDS_CHANNEL. */
  onSessionsEnded?: (userId: string) => void;
  /** Each time the connection is lost, and each time it listens again. */
  onConnectionChange?: (state: 'lost' | 'listening') => void;
  /** Tables written by each commit, heard on their channel (the answer cache's). */
  tables?: TableWatch | undefined;
}

/**
 * The instance's ear on the database: one dedicated connection LISTENing on the events channel
 * and on the channel of ended sessions.
 * When it drops (a database restart, a terminated backend) it connects again with backoff and
 * LISTENs again, for as long as the instance runs. Wake-ups sent while it was away are lost, the
 * changes are not: the change feed reads the log again when it is back.
 */
export class NoticeListener {
  private client: Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private attempt = 0;
  /** The statement under way on the connection (the next waits for it). */
  private running: Promise<unknown> = Promise.resolve();
  /** Logs the connection's loss once, and its return once, whatever the retries in between. */
  private readonly state: DependencyState;

  constructor(private readonly options: NoticeListenerOptions) {
    this.state = new DependencyState('event listener', options.logger);
  }

  /** Connects and listens; fails (as the database would at start-up) if it cannot. */
  async start(): Promise<void> {
    await this.connect();
  }

  /**
   * Runs one statement on the listener's own connection (the change feed reads the log there,
   * outside the request pool and its deadlines); rejects while it is away. Statements run one
   * after another: a feed read and a subscription's starting point may be asked at once, and pg
   * queues a statement sent while another runs only as a deprecated behaviour (gone in pg 9).
   */
  async query(text: string, values: readonly unknown[]): Promise<Row[]> {
    const client = this.client;
    if (!client) {
      throw new Error('the event listener is not connected');
    }
    const run = this.running.then(() => client.query<Row>(text, [...values]));
    this.running = run.catch(() => undefined);
    return (await run).rows;
  }

  /** Whether the listener currently holds its connection. */
  get listening(): boolean {
    return this.client !== null;
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.options.url,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
    });
    let lost = false;
    const onLost = (error?: Error): void => {
      if (lost) {
        return;
      }
      lost = true;
      if (this.client === client) {
        this.client = null;
      }
      client.end().catch(() => undefined);
      if (!this.closed) {
        this.state.failed(error ?? new Error('connection ended'));
        this.options.tables?.deaf();
        this.options.onConnectionChange?.('lost');
        this.scheduleReconnect();
      }
    };
    client.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL) {
        this.options.onChanges();
      } else if (message.channel === SESSION_ENDS_CHANNEL && message.payload) {
        this.receiveSessionEnd(message.payload);
      } else if (message.channel === this.options.tables?.channel && message.payload) {
        this.options.tables.changed(message.payload);
      }
    });
    client.on('error', onLost);
    client.on('end', () => onLost());
    try {
      await client.connect();
      await client.query(`listen ${CHANGES_CHANNEL}`);
      await client.query(`listen ${SESSION_ENDS_CHANNEL}`);
      if (this.options.tables) {
        await client.query(`listen ${this.options.tables.channel}`);
      }
    } catch (error) {
      lost = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.attempt = 0;
    this.options.tables?.heard();
    this.options.onConnectionChange?.('listening');
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) {
      return;
    }
    const delay =
      this.attempt === 0
        ? Math.random() * BACKOFF_MS.first
        : Math.min(BACKOFF_MS.first * 2 ** this.attempt, BACKOFF_MS.last);
    this.attempt += 1;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().then(
        () => {
          if (!this.closed) {
            this.state.recovered();
          }
        },
        (error: unknown) => {
          this.options.logger.debug(
            { component: 'events', reason: error instanceof Error ? error.message : 'unknown' },
            'event listener could not reconnect yet',
          );
          this.scheduleReconnect();
        },
      );
    }, delay);
    this.retry.unref();
  }

  private receiveSessionEnd(payload: string): void {
    const notice = sessionEndNotice.safeParse(parseJson(payload));
    if (!notice.success) {
      this.options.logger.warn({ component: 'events' }, 'ignored a malformed session notice');
      return;
    }
    this.options.onSessionsEnded?.(notice.data.userId);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) {
      clearTimeout(this.retry);
      this.retry = null;
    }
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}

/** A payload's JSON value; null when it is not JSON. */
function parseJson(payload: string): unknown {
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return null;
  }
}
