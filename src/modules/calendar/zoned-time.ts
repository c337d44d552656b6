import type {
  ICalTemporalInstantStub,
  ICalTemporalPlainDateStub,
  ICalTemporalPlainDateTimeStub,
  ICalTemporalZonedDateTimeStub,
} from 'ical-generator';
import { instantAt, MINUTE_MS, offsetMinutes } from '../../platform/shared/time-zone';

/*
 * Instants in a zone, in the shape ical-generator reads Temporal's objects in: given a plain Date
 * and a zone, it writes the process's own wall clock, not the zone's. These carry the zone's
 * wall-clock fields, from Intl's zone data (the service does not load the Temporal polyfill).
 */

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** A wall-clock date and time, held as its fields would read in UTC. */
class WallTime implements ICalTemporalPlainDateTimeStub {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;

  constructor(private readonly wall: number) {
    const fields = new Date(wall);
    this.year = fields.getUTCFullYear();
    this.month = fields.getUTCMonth() + 1;
    this.day = fields.getUTCDate();
    this.hour = fields.getUTCHours();
    this.minute = fields.getUTCMinutes();
    this.second = fields.getUTCSeconds();
  }

  toPlainDate(): ICalTemporalPlainDateStub {
    const text = this.toString().slice(0, 10);
    return {
      year: this.year,
      month: this.month,
      day: this.day,
      toJSON: () => text,
      toString: () => text,
    };
  }

  /** This wall-clock time in `zone` (a time the clock skips: as if it were not skipped). */
  toZonedDateTime(zone: string): ZonedTime {
    const seconds = (this.hour * 60 + this.minute) * 60 + this.second;
    const day = { year: this.year, month: this.month, day: this.day };
    return new ZonedTime(
      instantAt(zone, day, seconds) ?? this.wall - offsetMinutes(zone, this.wall) * MINUTE_MS,
      zone,
    );
  }

  toString(): string {
    return (
      `${pad(this.year, 4)}-${pad(this.month)}-${pad(this.day)}T` +
      `${pad(this.hour)}:${pad(this.minute)}:${pad(this.second)}`
    );
  }

  toJSON(): string {
    return this.toString();
  }
}

/** An instant as a zone's wall clock shows it. */
export class ZonedTime implements ICalTemporalZonedDateTimeStub {
  private readonly local: WallTime;

  constructor(
    readonly epochMilliseconds: number,
    readonly timeZoneId: string,
  ) {
    this.local = new WallTime(
      epochMilliseconds + offsetMinutes(timeZoneId, epochMilliseconds) * MINUTE_MS,
    );
  }

  get year(): number {
    return this.local.year;
  }

  get month(): number {
    return this.local.month;
  }

  get day(): number {
    return this.local.day;
  }

  get hour(): number {
    return this.local.hour;
  }

  get minute(): number {
    return this.local.minute;
  }

  get second(): number {
    return this.local.second;
  }

  toPlainDateTime(): WallTime {
    return this.local;
  }

  withTimeZone(zone: string): ZonedTime {
    return new ZonedTime(this.epochMilliseconds, zone);
  }

  toInstant(): ICalTemporalInstantStub {
    const ms = this.epochMilliseconds;
    const text = new Date(ms).toISOString();
    return {
      epochMilliseconds: ms,
      toJSON: () => text,
      toString: () => text,
      toZonedDateTimeISO: (zone: string) => new ZonedTime(ms, zone),
    };
  }

  toString(): string {
    const offset = offsetMinutes(this.timeZoneId, this.epochMilliseconds);
    const sign = offset < 0 ? '-' : '+';
    const hhmm = `${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
    return `${this.local.toString()}${sign}${hhmm}[${this.timeZoneId}]`;
  }

  toJSON(): string {
    return this.toString();
  }
}
