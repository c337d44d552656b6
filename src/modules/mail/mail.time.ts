import type { UserRecord } from '../user';

/** The zone a user reads times in: their own (User.timeZone, UTC until they set one). */
export const readerZone = (user: UserRecord): string => user.timeZone;

/**
 * One formatter per zone, made once: making an Intl.DateTimeFormat costs far more than using one
 * (a test run's profile put formatWhen among the busiest functions of the service, every message
 * made anew). The zones are stored ones, canonical, so at most the zone database's few hundred.
 */
const formats = new Map<string, Intl.DateTimeFormat>();

/** An instant as a message shows it to a reader in `zone`: weekday, date, time and the zone. */
export function formatWhen(instant: Date, zone: string): string {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(zone, format);
  }
  return `${format.format(instant)} (${zone})`;
}
