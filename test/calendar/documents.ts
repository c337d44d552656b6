import type { VEvent } from 'node-ical';
import { ICAL, type IcalComponent, nodeIcal } from './parsers';

/*
 * Reading the service's iCalendar documents back with both parsers, for the checks of
 * feeds.test.ts: ical.js (Mozilla's, Thunderbird's) and node-ical.
 */

/** An answer of a calendar route. */
export interface IcsAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** GETs a calendar document over HTTP, as a calendar app would. */
export async function getIcs(
  url: string,
  headers: Record<string, string> = {},
): Promise<IcsAnswer> {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The document as ical.js reads it: its zones registered first, so zoned times resolve. */
export function readWithIcalJs(text: string) {
  const root = new ICAL.Component(ICAL.parse(text));
  const zones = root.getAllSubcomponents('vtimezone');
  for (const zone of zones) {
    ICAL.TimezoneService.register(zone);
  }
  const events = root.getAllSubcomponents('vevent');
  return { root, zones, events };
}

/** A property's value as ical.js decodes it, as text (times as ical.js prints them). */
export const valueOf = (component: IcalComponent, name: string): string =>
  String(component.getFirstPropertyValue(name));

/** A property's parameter. */
export const parameterOf = (component: IcalComponent, name: string, parameter: string): unknown =>
  component.getFirstProperty(name)?.getParameter(parameter);

/** A calendar address with its scheme in lower case (`MAILTO:` and `mailto:` are one). */
export const address = (value: unknown): string => String(value).replace(/^mailto:/i, 'mailto:');

/** The attendees of a VEVENT as `mailto:… PARTSTAT (CN)` lines. */
export function attendeesOf(component: IcalComponent): string[] {
  return component
    .getAllProperties('attendee')
    .map(
      (attendee) =>
        `${address(attendee.getFirstValue())} ${String(attendee.getParameter('partstat'))} ` +
        `(${String(attendee.getParameter('cn'))})`,
    );
}

/**
 * The starts and ends (UTC) of a series' occurrences as ical.js expands them: its RRULE in its
 * zone, less EXDATE, with RECURRENCE-ID overrides in place.
 */
export function expandWithIcalJs(
  master: IcalComponent,
  overrides: readonly IcalComponent[],
): Array<{ start: string; end: string }> {
  const event = new ICAL.Event(master, { exceptions: [...overrides] });
  const iterator = event.iterator();
  const found: Array<{ start: string; end: string }> = [];
  for (let next = iterator.next(); next && found.length < 100; next = iterator.next()) {
    const details = event.getOccurrenceDetails(next);
    found.push({
      start: details.startDate.toJSDate().toISOString(),
      end: details.endDate.toJSDate().toISOString(),
    });
  }
  return found.sort((a, b) => a.start.localeCompare(b.start));
}

/** The document as node-ical reads it: its VEVENTs by UID (overrides under `recurrences`). */
export function readWithNodeIcal(text: string): Record<string, VEvent> {
  const events: Record<string, VEvent> = {};
  for (const [key, component] of Object.entries(nodeIcal.parseICS(text))) {
    if (component && component.type === 'VEVENT') {
      events[key] = component;
    }
  }
  return events;
}

/** A node-ical value that may carry parameters, as its value and parameters. */
export function withParams(
  value: unknown,
): { val: string; params: Record<string, unknown> } | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  if (typeof value === 'object' && 'val' in value) {
    const { val, params } = value as { val: unknown; params?: Record<string, unknown> };
    return { val: String(val), params: params ?? {} };
  }
  return { val: String(value), params: {} };
}
