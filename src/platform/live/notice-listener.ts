import { Client } from 'pg';
import type { Logger } from 'pino';
import { DependencyState } from '../observability/dependency-state';
import { EVENTS_CHANNEL } from './event.store';
import type { z } from 'zod';
import { SESSION_ENDS_CHANNEL, sessionEndNotice } from './session-end';

/** How the listener's own connection is named in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'meetings-event-listener';

/** Reconnection waits: doubling from the first to the last, then the last again. */
const BACKOFF_MS = { first: 100, last: 5_000 };

export interface NoticeListenerOptions<N> {
  url: string;
  logger: Logger;
  /** What a notice of the events channel is (one heard that is not is logged and ignored). */
  notice: z.ZodType<N>;
  /** Each valid notice heard on the channel. */
  onNotice: (notice: N) => void;
  /** Each user whose sign-in sessions ended, heard on SESSION_ENDS_CHANNEL. */
  onSessionsEnded?: (userId: string) => void;
  /** Each time the connection is lost, and each time it listens again. */
  onConnectionChange?: (state: 'lost' | 'listening') => void;
}

/**
 * The instance's ear on the database: one dedicated connection LISTENing on the events channel
 * and on the channel of ended sessions.
 * When it drops (a database restart, a terminated backend) it connects again with backoff and
 * LISTENs again, for as long as the instance runs; notices committed while it was away are lost.
 */
export class NoticeListener<N> {
  private client: Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private attempt = 0;
  /** Logs the connection's loss once, and its return once, whatever the retries in between. */
  private readonly state: DependencyState;

  constructor(private readonly options: NoticeListenerOptions<N>) {
    this.state = new DependencyState('event listener', options.logger);
  }

  /** Connects and listens; fails (as the database would at start-up) if it cannot. */
  async start(): Promise<void> {
    await this.connect();
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
        this.options.onConnectionChange?.('lost');
        this.scheduleReconnect();
      }
    };
    client.on('notification', (message) => {
      if (message.channel === EVENTS_CHANNEL && message.payload) {
        this.receive(message.payload);
      } else if (message.channel === SESSION_ENDS_CHANNEL && message.payload) {
        this.receiveSessionEnd(message.payload);
      }
    });
    client.on('error', onLost);
    client.on('end', () => onLost());
    try {
      await client.connect();
      await client.query(`listen ${EVENTS_CHANNEL}`);
      await client.query(`listen ${SESSION_ENDS_CHANNEL}`);
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
    this.options.onConnectionChange?.('listening');
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) {
      return;
    }
    const delay = Math.min(BACKOFF_MS.first * 2 ** this.attempt, BACKOFF_MS.last);
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

  private receive(payload: string): void {
    const notice = this.options.notice.safeParse(parseJson(payload));
    if (!notice.success) {
      this.options.logger.warn({ component: 'events' }, 'ignored a malformed event notice');
      return;
    }
    this.options.onNotice(notice.data);
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
