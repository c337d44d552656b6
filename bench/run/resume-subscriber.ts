import type { Client } from 'graphql-ws';
import { compareCursors } from '../../src/platform/live/change-log';
import type { Server } from '../lib/processes';
import { subscribe } from './live-clients';

// A subscriber of the resume scenario: a user's myMeetingEvents subscription that resumes after
// the last cursor it received whenever its socket closes.

/** A closed socket is opened again after this, plus as much again at random. */
const RECONNECT_MS = 100;

/** What each subscriber asks for: its meetings' events, after its cursor. */
const EVENTS =
  'subscription ($after: String) { myMeetingEvents(after: $after) { cursor kind occurredAt userId meeting { id title status } } }';
interface MeetingEventData {
  myMeetingEvents: { cursor: string; kind: string; meeting: { id: string } };
}

/** One subscriber: its socket, the cursor it resumes after, and what it received when. */
export class Subscriber {
  private client: Client | null = null;
  private away = true;
  /** The cursor of the last event received. */
  last: string | null = null;
  /** Arrival (performance.now()) of each event received, by cursor. */
  readonly arrivals = new Map<string, number>();
  duplicates = 0;
  outOfOrder = 0;
  /** Events not of its meeting, or not the kind written. */
  wrong = 0;
  /** Closes of its socket by the service, by code. */
  readonly closes = new Map<number, number>();

  constructor(
    private readonly service: Server,
    readonly userId: string,
    readonly meetingId: string,
    /** Where it starts: after this cursor (null: what comes after it subscribed). */
    from: string | null,
  ) {
    this.last = from;
  }

  open(): void {
    this.away = false;
    this.client = subscribe<MeetingEventData>(
      this.service,
      this.userId,
      { query: EVENTS, variables: { after: this.last } },
      {
        next: (data) => this.receive(data.myMeetingEvents),
        closed: (code) => this.closed(code),
      },
    );
  }

  private receive(event: MeetingEventData['myMeetingEvents']): void {
    if (this.arrivals.has(event.cursor)) {
      this.duplicates += 1;
      return;
    }
    this.arrivals.set(event.cursor, performance.now());
    if (event.kind !== 'UPDATED' || event.meeting.id !== this.meetingId) {
      this.wrong += 1;
    }
    if (this.last !== null && compareCursors(event.cursor, this.last) < 0) {
      this.outOfOrder += 1;
    } else {
      this.last = event.cursor;
    }
  }

  private closed(code: number): void {
    this.closes.set(code, (this.closes.get(code) ?? 0) + 1);
    this.client = null;
    if (!this.away) {
      const wait = RECONNECT_MS * (1 + Math.random());
      setTimeout(() => {
        if (!this.away && this.client === null) {
          this.open();
        }
      }, wait);
    }
  }

  /** Closes its socket (no reconnect until `open`). */
  async leave(): Promise<void> {
    this.away = true;
    const client = this.client;
    this.client = null;
    await client?.dispose();
  }
}
