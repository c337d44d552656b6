import { ParticipantStatus } from '../../meeting';
import type { UserRecord } from '../../user';
import { reminderLetter } from '../letters';
import { MailKind } from '../mail-message.entity';
import type { Planner } from '../mail.draft';
import { reminderKey } from './reminder.schedule';
import { ReminderStore } from './reminder.store';

/**
 * A reminder came due (its REMINDER change) → a reminder to the owner and to each participant
 * who accepted, once per reminder and reader, whichever change it is seen by.
 */
export const reminded: Planner = async (change, env) => {
  const entry = change.meetingId ? await env.entry(change.meetingId) : null;
  if (!entry || !change.meetingId) {
    return [];
  }
  const readers = new Map<string, UserRecord>(entry.owner ? [[entry.owner.id, entry.owner]] : []);
  for (const { participant, user } of entry.attendees) {
    if (participant.status === ParticipantStatus.ACCEPTED) {
      readers.set(user.id, user);
    }
  }
  const reminders = await new ReminderStore(env.em).sentAt(change.meetingId, change.occurredAt);
  return reminders.flatMap((reminder) =>
    [...readers.values()].map((reader) => ({
      dedupeKey: `${reminderKey(reminder)} ${reader.id}`,
      kind: MailKind.REMINDER,
      user: reader,
      senderId: null,
      letter: reminderLetter(entry, reader, {
        occurrenceStart: new Date(reminder.occurrenceStart),
        minutes: reminder.minutes,
      }),
    })),
  );
};
