import ical, {
  type ICalAttendeeStatus,
  ICalCalendarMethod,
  type ICalEventData,
  ICalEventStatus,
} from 'ical-generator';
import type { UserRecord } from '../user';
import { MINUTE_MS } from '../../platform/shared/time-zone';
import { type CalendarEntry, eventsOf, PARTSTAT, PRODUCT, roomAttendees, zoneYears } from './ics';
import { vtimezone } from './vtimezone';
import { ZonedTime } from './zoned-time';

/** The iTIP methods the service sends (RFC 5546). */
export type ItipMethod = 'REQUEST' | 'CANCEL' | 'REPLY';

/** What an iTIP message says beyond the meeting's own entry. */
export interface ItipOptions {
  method: ItipMethod;
  /** When the message is made: its DTSTAMP. */
  now: Date;
  /** Where attendees' calendar apps send their REPLY (a reply address), else the owner's. */
  organizerAddress?: string;
  /** REPLY: the one attendee answering. CANCEL to a removed participant: that user alone. */
  only?: { user: UserRecord; status: ICalAttendeeStatus };
  /** CANCEL of one occurrence of a series: its original start (RECURRENCE-ID). */
  occurrence?: Date;
}

/** The scheduling message's VEVENTs: the entry's own, with RSVP asked of every attendee. */
function itipEvents(entry: CalendarEntry, options: ItipOptions): ICalEventData[] {
  const { meeting, owner } = entry;
  const [series, ...moved] = eventsOf(entry);
  if (!series) {
    return [];
  }
  const rsvp = options.method === 'REQUEST' ? true : null;
  const attendees = options.only
    ? [{ user: options.only.user, status: options.only.status }]
    : entry.attendees.map(({ participant, user }) => ({
        user,
        status: PARTSTAT[participant.status],
      }));
  const shared = {
    stamp: options.now,
    organizer: owner ? { name: owner.name, email: options.organizerAddress ?? owner.email } : null,
    attendees: [
      ...attendees.map(({ user, status }) => ({
        name: user.name,
        email: user.email,
        status,
        rsvp,
      })),
      // A reply speaks for its one attendee; the rooms are the organizer's to list.
      ...(options.method === 'REPLY' ? [] : roomAttendees(entry)),
    ],
  };
  if (options.occurrence) {
    const original = options.occurrence.getTime();
    const at = (instant: number) => new ZonedTime(instant, meeting.timeZone);
    return [
      {
        ...series,
        ...shared,
        repeating: null,
        recurrenceId: at(original),
        start: at(original),
        end: at(original + meeting.durationMinutes * MINUTE_MS),
        status: ICalEventStatus.CANCELLED,
      },
    ];
  }
  const status = options.method === 'CANCEL' ? { status: ICalEventStatus.CANCELLED } : {};
  return [series, ...moved].map((event) => ({ ...event, ...shared, ...status }));
}

/**
 * The iCalendar text of an iTIP message (RFC 5546) about one meeting: METHOD, and the feed's
 * VEVENT of it (same UID, SEQUENCE, zones, RRULE, EXDATE, RECURRENCE-ID) with ORGANIZER and
 * ATTENDEE;RSVP=TRUE per participant (REQUEST), the answering attendee alone (REPLY), or the
 * cancelled meeting, occurrence or participant (CANCEL, STATUS:CANCELLED).
 */
export function itipDocument(entry: CalendarEntry, options: ItipOptions): string {
  const years = zoneYears([entry], options.now);
  const calendar = ical({
    prodId: PRODUCT,
    method: ICalCalendarMethod[options.method],
    timezone: { name: null, generator: (zone) => vtimezone(zone, years) },
  });
  for (const event of itipEvents(entry, options)) {
    calendar.createEvent(event);
  }
  return calendar.toString();
}
