import type { UserRecord } from '../user';

/** The zone a user reads times in: their own (User.timeZone, UTC until they set one). */
export const readerZone = (user: UserRecord): string => user.timeZone;

/** An instant as a message shows it to a reader in `zone`: weekday, date, time and the zone. */
export function formatWhen(instant: Date, zone: string): string {
  const text = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(instant);
  return `${text} (${zone})`;
}
