import { vtimezone } from '../../src/modules/calendar/vtimezone';
import { offsetMinutes } from '../../src/platform/shared/time-zone';
import { ICAL, type IcalTimezone } from './parsers';

/** The zone as ical.js (Thunderbird's parser) reads our VTIMEZONE. */
function parsed(zone: string, years: { from: number; to: number }) {
  const text = vtimezone(zone, years);
  if (text === null) {
    throw new Error(`no VTIMEZONE for ${zone}`);
  }
  const component = new ICAL.Component(ICAL.parse(`BEGIN:VCALENDAR\r\n${text}\r\nEND:VCALENDAR`));
  return { text, timezone: new ICAL.Timezone(component.getFirstSubcomponent('vtimezone')!) };
}

const HOUR = 3_600_000;

/**
 * Whether ical.js reads the wall-clock time `zone` shows at `instant` (with our VTIMEZONE) as
 * that instant, as a calendar app reads a DTSTART with TZID. A wall-clock time shown twice (when
 * clocks go back) names either instant: those are left out.
 */
function readsBack(zone: string, timezone: IcalTimezone, instant: number): boolean | 'ambiguous' {
  const wall = instant + offsetMinutes(zone, instant) * 60_000;
  const offsets = new Set([-1, 0, 1].map((h) => offsetMinutes(zone, instant + h * 3 * HOUR)));
  const instants = [...offsets]
    .map((offset) => wall - offset * 60_000)
    .filter((candidate) => candidate + offsetMinutes(zone, candidate) * 60_000 === wall);
  if (instants.length > 1) {
    return 'ambiguous';
  }
  const fields = new Date(wall);
  const time = ICAL.Time.fromData(
    {
      year: fields.getUTCFullYear(),
      month: fields.getUTCMonth() + 1,
      day: fields.getUTCDate(),
      hour: fields.getUTCHours(),
      minute: fields.getUTCMinutes(),
      second: 0,
      isDate: false,
    },
    timezone,
  );
  return time.toUnixTime() * 1000 === instant;
}

describe('VTIMEZONE from Intl zone data', () => {
  it.each([
    'America/New_York',
    'Europe/Berlin',
    'Australia/Sydney',
    'America/Sao_Paulo',
    'Asia/Kolkata',
    'Asia/Tokyo',
    'Europe/London',
    'America/Santiago',
    'Pacific/Auckland',
  ])(
    'makes ical.js read %s as Intl does, every day and hour by hour around each change',
    (zone) => {
      const years = { from: 2017, to: 2031 };
      const { timezone } = parsed(zone, years);
      // Every day at noon UTC, and every hour of the days the offset changes (a week past `to`:
      // a rule still in force goes on).
      const checked: number[] = [];
      for (let day = Date.UTC(2017, 0, 2); day < Date.UTC(2031, 0, 8); day += 24 * HOUR) {
        const noon = day + 12 * HOUR;
        checked.push(noon);
        if (offsetMinutes(zone, day) !== offsetMinutes(zone, day + 24 * HOUR)) {
          for (let hour = 0; hour < 24; hour += 1) {
            checked.push(day + hour * HOUR, day + hour * HOUR + 59 * 60_000);
          }
        }
      }
      const results = checked.map((instant) => readsBack(zone, timezone, instant));
      const wrong = checked.filter((_, index) => results[index] === false);
      expect(wrong.map((instant) => new Date(instant).toISOString())).toEqual([]);
      expect(results.filter((result) => result === true).length).toBeGreaterThan(5000);
    },
  );

  it('writes yearly changes as rules, as published zone files do', () => {
    const { text } = parsed('America/New_York', { from: 2026, to: 2030 });
    expect(text.split('\r\n')).toEqual([
      'BEGIN:VTIMEZONE',
      'TZID:America/New_York',
      'BEGIN:STANDARD',
      'DTSTART:20251231T190000',
      'TZOFFSETFROM:-0500',
      'TZOFFSETTO:-0500',
      'TZNAME:EST',
      'END:STANDARD',
      'BEGIN:DAYLIGHT',
      'DTSTART:20260308T020000',
      'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
      'TZOFFSETFROM:-0500',
      'TZOFFSETTO:-0400',
      'TZNAME:EDT',
      'END:DAYLIGHT',
      'BEGIN:STANDARD',
      'DTSTART:20261101T020000',
      'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
      'TZOFFSETFROM:-0400',
      'TZOFFSETTO:-0500',
      'TZNAME:EST',
      'END:STANDARD',
      'END:VTIMEZONE',
    ]);
  });

  it('names the last Sunday -1SU, and starts south of the equator in daylight time', () => {
    const berlin = vtimezone('Europe/Berlin', { from: 2026, to: 2030 }) ?? '';
    expect(berlin).toContain('RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU');
    expect(berlin).toContain('RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU');
    const sydney = vtimezone('Australia/Sydney', { from: 2026, to: 2030 }) ?? '';
    expect(sydney.split('\r\n').slice(2, 5)).toEqual([
      'BEGIN:DAYLIGHT',
      'DTSTART:20260101T110000',
      'TZOFFSETFROM:+1100',
    ]);
  });

  it('ends a rule a zone gave up (UNTIL), and keeps a zone without changes to one observance', () => {
    const saoPaulo = vtimezone('America/Sao_Paulo', { from: 2017, to: 2024 }) ?? '';
    expect(saoPaulo).toContain('RRULE:FREQ=YEARLY;BYMONTH=2;BYDAY=3SU;UNTIL=20190217T020000Z');
    const kolkata = vtimezone('Asia/Kolkata', { from: 2026, to: 2030 }) ?? '';
    expect(kolkata.split('\r\n')).toEqual([
      'BEGIN:VTIMEZONE',
      'TZID:Asia/Kolkata',
      'BEGIN:STANDARD',
      'DTSTART:20260101T053000',
      'TZOFFSETFROM:+0530',
      'TZOFFSETTO:+0530',
      'END:STANDARD',
      'END:VTIMEZONE',
    ]);
  });

  it('writes none for UTC, which iCalendar writes as UTC times', () => {
    expect(vtimezone('UTC', { from: 2026, to: 2030 })).toBeNull();
  });
});
