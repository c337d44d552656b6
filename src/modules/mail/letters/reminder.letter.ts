import type { CalendarEntry } from '../../calendar';
import type { UserRecord } from '../../user';
import type { Letter } from '../mail.compose';
import { bodyOf } from '../mail.text';
import { formatWhen, readerZone } from '../mail.time';

/** How long before: "in 10 minutes", "in 2 hours", "in 1 day", or "now". */
export function howSoon(minutes: number): string {
  const [count, unit] =
    minutes % 1440 === 0
      ? [minutes / 1440, 'day']
      : minutes % 60 === 0
        ? [minutes / 60, 'hour']
        : [minutes, 'minute'];
  return minutes === 0 ? 'now' : `in ${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** A reminder of one occurrence of a meeting to `reader`, its time in the reader's zone. */
export function reminderLetter(
  entry: CalendarEntry,
  reader: UserRecord,
  reminder: { occurrenceStart: Date; minutes: number },
): Letter {
  const { meeting } = entry;
  const soon = howSoon(reminder.minutes);
  return {
    to: { name: reader.name, address: reader.email },
    subject: `Reminder: ${meeting.title} ${soon === 'now' ? 'starts now' : soon}`,
    ...bodyOf([
      `Hello ${reader.name},`,
      `“${meeting.title}” starts ${soon}.`,
      `When: ${formatWhen(reminder.occurrenceStart, readerZone(reader))}, ${meeting.durationMinutes} minutes`,
      ...(meeting.location ? [`Where: ${meeting.location}`] : []),
      ...(meeting.locationUrl ? [{ link: meeting.locationUrl, label: 'Join' }] : []),
    ]),
  };
}
