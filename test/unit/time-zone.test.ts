import {
  canonicalTimeZone,
  instantAt,
  isoWeekday,
  localDayOf,
  localStamp,
  mergeSpans,
  offsetMinutes,
  wallMinutes,
} from '../../src/platform/shared/time-zone';

const iso = (instant: number | null) => (instant === null ? null : new Date(instant).toISOString());
const at = (text: string) => Date.parse(text);

describe('wall-clock time in IANA zones', () => {
  it('spells zones as the zone database does and refuses what it does not know', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('utc')).toBe('UTC');
    expect(canonicalTimeZone('Mars/Olympus')).toBeNull();
    expect(canonicalTimeZone('+01:00')).toBeNull();
  });

  it('knows the offsets on both sides of a change', () => {
    expect(offsetMinutes('Europe/Berlin', at('2027-03-28T00:59:59Z'))).toBe(60);
    expect(offsetMinutes('Europe/Berlin', at('2027-03-28T01:00:00Z'))).toBe(120);
    expect(offsetMinutes('America/New_York', at('2027-11-07T06:00:00Z'))).toBe(-300);
    expect(offsetMinutes('Asia/Kolkata', at('2027-01-01T00:00:00Z'))).toBe(330);
    expect(offsetMinutes('UTC', at('2027-01-01T00:00:00Z'))).toBe(0);
  });

  it('answers what Intl does minute by minute around changes off the hour, read twice', () => {
    const intl = (zone: string, instant: number): string =>
      new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
        .formatToParts(instant)
        .find((part) => part.type === 'timeZoneName')?.value ?? '';
    const hhmm = (minutes: number): string =>
      [Math.floor(minutes / 60), minutes % 60].map((n) => String(n).padStart(2, '0')).join(':');
    // Intl's own spelling: `GMT` for no offset, else `GMT+10:30`, `GMT-03:30`.
    const asText = (minutes: number): string =>
      minutes === 0 ? 'GMT' : `GMT${minutes < 0 ? '-' : '+'}${hhmm(Math.abs(minutes))}`;
    // Lord Howe changes by 30 minutes at 02:00 local (15:00 or 15:30 UTC); St John's is -03:30.
    const changes: Array<[string, string]> = [
      ['Australia/Lord_Howe', '2027-04-03T15:00:00Z'],
      ['Australia/Lord_Howe', '2027-10-02T15:30:00Z'],
      ['America/St_Johns', '2027-03-14T05:30:00Z'],
      ['Europe/Berlin', '2027-10-31T01:00:00Z'],
    ];
    for (const [zone, change] of changes) {
      for (let minute = -120; minute <= 120; minute += 1) {
        const instant = at(change) + minute * 60_000 - 1;
        for (const pass of [1, 2]) {
          expect([zone, pass, instant, asText(offsetMinutes(zone, instant))]).toEqual([
            zone,
            pass,
            instant,
            intl(zone, instant),
          ]);
        }
      }
    }
  });

  it('finds the instant of a wall time, none in a gap and the first in a fold', () => {
    const spring = { year: 2027, month: 3, day: 28 };
    expect(iso(instantAt('Europe/Berlin', spring, 9 * 3600))).toBe('2027-03-28T07:00:00.000Z');
    expect(iso(instantAt('Europe/Berlin', spring, 1 * 3600))).toBe('2027-03-28T00:00:00.000Z');
    expect(instantAt('Europe/Berlin', spring, 2.5 * 3600)).toBeNull();
    const autumn = { year: 2027, month: 10, day: 31 };
    expect(iso(instantAt('Europe/Berlin', autumn, 2.5 * 3600))).toBe('2027-10-31T00:30:00.000Z');
    expect(iso(instantAt('Europe/Berlin', autumn, 9 * 3600))).toBe('2027-10-31T08:00:00.000Z');
  });

  it('reads days, weekdays, wall minutes and local stamps', () => {
    expect(localDayOf('America/New_York', at('2027-06-01T03:00:00Z'))).toEqual({
      year: 2027,
      month: 5,
      day: 31,
    });
    expect(isoWeekday({ year: 2027, month: 3, day: 22 })).toBe(1);
    expect(isoWeekday({ year: 2027, month: 3, day: 28 })).toBe(7);
    const day = { year: 2027, month: 3, day: 28 };
    expect(wallMinutes('Europe/Berlin', day, at('2027-03-28T15:00:00Z'))).toBe(17 * 60);
    expect(localStamp('Europe/Berlin', at('2027-03-29T07:00:00Z'))).toBe('20270329T090000');
  });

  it('merges spans that overlap or touch', () => {
    const span = (start: string, end: string) => ({ start: new Date(start), end: new Date(end) });
    expect(
      mergeSpans([
        span('2027-01-01T12:00Z', '2027-01-01T13:00Z'),
        span('2027-01-01T09:00Z', '2027-01-01T10:00Z'),
        span('2027-01-01T09:30Z', '2027-01-01T11:00Z'),
        span('2027-01-01T11:00Z', '2027-01-01T11:30Z'),
      ]),
    ).toEqual([
      span('2027-01-01T09:00Z', '2027-01-01T11:30Z'),
      span('2027-01-01T12:00Z', '2027-01-01T13:00Z'),
    ]);
  });
});
