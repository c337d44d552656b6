import { createHash } from 'node:crypto';
import ical, {
  type ICalAttendeeData,
  ICalAttendeeRole,
  ICalAttendeeStatus,
  ICalAttendeeType,
  type ICalEventData,
  ICalEventStatus,
} from 'ical-generator';
import { localStamp, MINUTE_MS } from '../../platform/shared/time-zone';
import {
  calendarRule,
  type MeetingRecord,
  MeetingStatus,
  type OccurrenceChangeRecord,
  type ParticipantRecord,
  ParticipantStatus,
} from '../meeting';
import type { UserRecord } from '../user';
import type { ResourceRecord } from '../resource';
import { vtimezone } from './vtimezone';
import { ZonedTime } from './zoned-time';

/*
 * iCalendar documents (RFC 5545) of meetings, written by ical-generator. Each meeting is one
 * VEVENT named by the meeting's id (UID), in its zone (DTSTART/DTEND with TZID and the zone's
 * VTIMEZONE; UTC meetings in UTC form), a series with its RRULE, its cancelled occurrences as
 * EXDATE and each moved one as a VEVENT of its own with the same UID and a RECURRENCE-ID. DTSTAMP
 * and LAST-MODIFIED are the meeting's last change: with no METHOD, DTSTAMP is when the entry was
 * last revised (RFC 5545 §3.8.7.2), so the document is the same until something in it changes:
 * its hash serves as the ETag, or a hash of its data and {@link renderingOf} (a feed's, which can
 * then be compared before the document is built).
 */

/** Everything the calendar entry of one meeting shows. */
export interface CalendarEntry {
  meeting: MeetingRecord;
  /** The organizer; null only if the owner's record could not be read. */
  owner: UserRecord | null;
  /** The participants in the order they were added (the owner among them), with their users. */
  attendees: ReadonlyArray<{ participant: ParticipantRecord; user: UserRecord }>;
  /** A series' occurrences changed one by one. */
  edits: readonly OccurrenceChangeRecord[];
  /** The rooms and other resources it books, in the order they were added. */
  resources: readonly ResourceRecord[];
}

/** A calendar document, with what HTTP validates it by. */
export interface IcsDocument {
  text: string;
  /** A weak validator (the body is compressed per request): a hash of the text or its data. */
  etag: string;
  /** The newest change of what the document shows (its meetings, answers and occurrences). */
  lastModified: Date;
}

/** How each answer is written (PARTSTAT). */
export const PARTSTAT: Record<ParticipantStatus, ICalAttendeeStatus> = {
  [ParticipantStatus.NEW]: ICalAttendeeStatus.NEEDSACTION,
  [ParticipantStatus.ACCEPTED]: ICalAttendeeStatus.ACCEPTED,
  [ParticipantStatus.DECLINED]: ICalAttendeeStatus.DECLINED,
};

/** How each meeting status is written (STATUS). */
const STATUS: Record<MeetingStatus, ICalEventStatus> = {
  [MeetingStatus.PENDING]: ICalEventStatus.TENTATIVE,
  [MeetingStatus.CONFIRMED]: ICalEventStatus.CONFIRMED,
  [MeetingStatus.COMPLETED]: ICalEventStatus.CONFIRMED,
  [MeetingStatus.CANCELLED]: ICalEventStatus.CANCELLED,
};

/** How often a subscribed calendar app is asked to fetch the document again. */
const REFRESH_SECONDS = 3600;
/**
 * Years the zones are defined for past the last one a document's meetings start in (a series
 * without end goes on with the rules still in force then).
 */
const ZONE_YEARS_AHEAD = 3;

export const PRODUCT = { company: 'meeting-coordination', product: 'calendar', language: 'EN' };

/**
 * The version of what this file writes: raised by a change that writes the same data differently,
 * so that ETags made of the data (a feed's) change with it.
 */
const RENDERING_VERSION = 1;

/**
 * What a document shows of a user (ORGANIZER, ATTENDEE, a feed's name): a feed's ETag hashes
 * these fields, so a field shown anew belongs here too.
 */
export const SHOWN_USER_FIELDS = ['name', 'email'] as const satisfies ReadonlyArray<
  keyof UserRecord
>;

/** The UTC year of `now`, the one thing of it a document depends on (see zoneYears). */
const yearOf = (now: Date): number => now.getUTCFullYear();

/**
 * What a document depends on besides its data and name: this file's version, the zone data its
 * VTIMEZONEs come from, and the year of `now`.
 */
export const renderingOf = (now: Date): string =>
  [RENDERING_VERSION, process.versions.tz ?? process.versions.icu, yearOf(now)].join(' ');

/** A weak entity tag (`W/"…"`, 27 characters of SHA-256) of some texts. */
export function weakTag(...texts: readonly string[]): string {
  const hash = createHash('sha256');
  texts.forEach((text, index) => hash.update(index === 0 ? text : `\0${text}`));
  return `W/"${hash.digest('base64url').slice(0, 27)}"`;
}

/** An instant in the form a property with the meeting's zone writes it (EXDATE). */
function zonedValue(zone: string, instant: number): string {
  return zone === 'UTC' ? `${localStamp('UTC', instant)}Z` : localStamp(zone, instant);
}

/** RRULE and, for cancelled occurrences, EXDATE (their starts as the rule gives them). */
function repetition(meeting: MeetingRecord, edits: readonly OccurrenceChangeRecord[]): string {
  const zone = meeting.timeZone;
  const rule = calendarRule(meeting.recurrence ?? '', zone);
  if (rule === null) {
    throw new Error(`meeting ${meeting.id} has no valid recurrence`);
  }
  const cancelled = edits
    .filter((edit) => edit.cancelled)
    .map((edit) => zonedValue(zone, Date.parse(edit.originalStartTime)));
  const exdate =
    cancelled.length === 0
      ? []
      : [`EXDATE${zone === 'UTC' ? '' : `;TZID=${zone}`}:${cancelled.join(',')}`];
  return [`RRULE:${rule}`, ...exdate].join('\r\n');
}

/** The VEVENT fields every entry of a meeting shares (the series and its moved occurrences). */
function sharedFields(entry: CalendarEntry): Omit<ICalEventData, 'start'> {
  const { meeting, owner } = entry;
  const changed = new Date(meeting.updatedAt);
  return {
    id: meeting.id,
    sequence: meeting.sequence,
    stamp: changed,
    lastModified: changed,
    created: new Date(meeting.createdAt),
    timezone: meeting.timeZone,
    summary: meeting.title,
    description: meeting.description,
    location: locationOf(entry),
    url: meeting.locationUrl,
    status: STATUS[meeting.status],
    organizer: owner ? { name: owner.name, email: owner.email } : null,
    attendees: [
      ...entry.attendees.map(({ participant, user }) => ({
        name: user.name,
        email: user.email,
        status: PARTSTAT[participant.status],
      })),
      ...roomAttendees(entry),
    ],
  };
}

/**
 * Where a meeting is, as LOCATION: the rooms it books, by name, then its own place (every meeting
 * has one), e.g. `Blue room, Main office`; without rooms, its place.
 */
const locationOf = ({ meeting, resources }: CalendarEntry): string =>
  [...resources.map((resource) => resource.name), meeting.location].join(', ');

/**
 * The resources a meeting books, as attendees: ATTENDEE;CUTYPE=ROOM;CN=<name>, booked
 * (ACCEPTED), taking no part (NON-PARTICIPANT). A resource has no mailbox; its address is a name
 * of its own under `.invalid` (RFC 6761), which no message is ever sent to.
 */
export const roomAttendees = (entry: CalendarEntry): ICalAttendeeData[] =>
  entry.resources.map((resource) => ({
    name: resource.name,
    email: `resource-${resource.id}@resources.invalid`,
    type: ICalAttendeeType.ROOM,
    role: ICalAttendeeRole.NON,
    status: ICalAttendeeStatus.ACCEPTED,
  }));

/** The VEVENTs of one meeting: itself (a series: with its rule), then its moved occurrences. */
export function eventsOf(entry: CalendarEntry): ICalEventData[] {
  const { meeting, edits } = entry;
  const zone = meeting.timeZone;
  const duration = meeting.durationMinutes * MINUTE_MS;
  const at = (instant: number) => new ZonedTime(instant, zone);
  const start = Date.parse(meeting.startTime);
  const shared = sharedFields(entry);
  const series = meeting.recurrence !== null;
  const events: ICalEventData[] = [
    {
      ...shared,
      start: at(start),
      end: at(start + duration),
      repeating: series ? repetition(meeting, edits) : null,
    },
  ];
  if (!series) {
    return events;
  }
  for (const edit of edits) {
    if (edit.cancelled || edit.startTime === null) {
      continue;
    }
    const moved = Date.parse(edit.startTime);
    events.push({
      ...shared,
      recurrenceId: at(Date.parse(edit.originalStartTime)),
      start: at(moved),
      end: at(moved + duration),
    });
  }
  return events;
}

/** The years the zones of a document are defined for: around its meetings' starts, and now. */
export function zoneYears(
  entries: readonly CalendarEntry[],
  now: Date,
): { from: number; to: number } {
  const years = entries.flatMap(({ meeting, edits }) => [
    new Date(meeting.startTime).getUTCFullYear(),
    ...edits.flatMap((edit) => (edit.startTime ? [new Date(edit.startTime).getUTCFullYear()] : [])),
  ]);
  const thisYear = yearOf(now);
  return {
    from: Math.min(thisYear, ...years) - 1,
    to: Math.max(thisYear, ...years) + ZONE_YEARS_AHEAD,
  };
}

/** The newest of the timestamps a document shows; `since` when it shows none. */
function newestChange(entries: readonly CalendarEntry[], since: Date): Date {
  let newest = since.getTime();
  for (const { meeting, attendees, edits } of entries) {
    const stamps = [
      meeting.updatedAt,
      ...attendees.map(({ participant }) => participant.updatedAt),
      ...edits.map((edit) => edit.updatedAt),
    ];
    for (const stamp of stamps) {
      newest = Math.max(newest, Date.parse(stamp));
    }
  }
  return new Date(newest);
}

/**
 * The document of `entries`, named `name`. `since` stands for the last change of an empty
 * document (a new feed's creation); `now` only bounds the years its zones are defined for. Its
 * ETag is `etag` when given (one made of the data before it was built), else the text's hash.
 */
export function icsDocument(
  entries: readonly CalendarEntry[],
  options: { name: string; since: Date; now: Date; etag?: string },
): IcsDocument {
  const years = zoneYears(entries, options.now);
  const calendar = ical({
    prodId: PRODUCT,
    name: options.name,
    ttl: REFRESH_SECONDS,
    // No zone of its own: each event names its own, and gets the VTIMEZONE it names.
    timezone: { name: null, generator: (zone) => vtimezone(zone, years) },
  });
  for (const entry of entries) {
    for (const event of eventsOf(entry)) {
      calendar.createEvent(event);
    }
  }
  const text = calendar.toString();
  return {
    text,
    etag: options.etag ?? weakTag(text),
    lastModified: newestChange(entries, options.since),
  };
}
