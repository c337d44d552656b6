import type ICALModule from 'ical.js' with { 'resolution-mode': 'import' };

// ical.js declares ES module types only; its CommonJS build is what loads here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ICAL = require('ical.js') as typeof ICALModule;

/** What an iTIP REPLY (RFC 5546 §3.2.3) says: its method, the event's UID, each attendee's answer. */
export interface ItipReply {
  method: string;
  uid: string;
  attendees: ReadonlyArray<{ address: string; partstat: string }>;
}

/** An address of a calendar property (`mailto:…`), lower-cased, without its scheme. */
const addressOf = (value: unknown): string =>
  String(value)
    .replace(/^mailto:/i, '')
    .toLowerCase();

/** The reply a calendar part holds, read with ical.js; null when it is not iCalendar at all. */
export function readItipReply(text: string): ItipReply | null {
  try {
    const root = new ICAL.Component(ICAL.parse(text));
    const event = root.getFirstSubcomponent('vevent');
    return {
      method: String(root.getFirstPropertyValue('method') ?? '').toUpperCase(),
      uid: String(event?.getFirstPropertyValue('uid') ?? ''),
      attendees: (event?.getAllProperties('attendee') ?? []).map((attendee) => ({
        address: addressOf(attendee.getFirstValue()),
        partstat: String(attendee.getParameter('partstat') ?? '').toUpperCase(),
      })),
    };
  } catch {
    return null;
  }
}
