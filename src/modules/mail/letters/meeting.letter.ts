import type { CalendarEntry, ItipMethod } from '../../calendar';
import type { UserRecord } from '../../user';
import type { Letter } from '../mail.compose';
import { type Block, bodyOf } from '../mail.text';
import { formatWhen, readerZone } from '../mail.time';

/** What a meeting's message is about. */
export type MeetingNews =
  | { kind: 'invited' }
  | { kind: 'updated' }
  | { kind: 'cancelled' }
  | { kind: 'removed' }
  | { kind: 'occurrence-cancelled'; originalStart: Date }
  | { kind: 'answered'; answerer: UserRecord; accepted: boolean };

/** The subject and first line of each kind of news. */
function headline(news: MeetingNews, entry: CalendarEntry): { subject: string; lead: string } {
  const title = entry.meeting.title;
  const owner = entry.owner?.name ?? 'The organizer';
  switch (news.kind) {
    case 'invited':
      return { subject: `Invitation: ${title}`, lead: `${owner} invites you to “${title}”.` };
    case 'updated':
      return { subject: `Updated: ${title}`, lead: `${owner} changed “${title}”.` };
    case 'cancelled':
      return { subject: `Cancelled: ${title}`, lead: `${owner} cancelled “${title}”.` };
    case 'removed':
      return {
        subject: `Cancelled: ${title}`,
        lead: `You are no longer a participant of “${title}”.`,
      };
    case 'occurrence-cancelled':
      return {
        subject: `Cancelled: ${title} (one occurrence)`,
        lead: `${owner} cancelled one occurrence of “${title}”.`,
      };
    case 'answered': {
      const verb = news.accepted ? 'accepted' : 'declined';
      return {
        subject: `${news.answerer.name} ${verb}: ${title}`,
        lead: `${news.answerer.name} ${verb} your invitation to “${title}”.`,
      };
    }
  }
}

/** When and where, in the reader's zone. */
function details(news: MeetingNews, entry: CalendarEntry, reader: UserRecord): Block[] {
  const { meeting } = entry;
  const zone = readerZone(reader);
  const start =
    news.kind === 'occurrence-cancelled' ? news.originalStart : new Date(meeting.startTime);
  const repeats = meeting.recurrence !== null && news.kind !== 'occurrence-cancelled';
  return [
    `When: ${formatWhen(start, zone)}, ${meeting.durationMinutes} minutes${repeats ? ', repeating' : ''}`,
    ...(meeting.location ? [`Where: ${meeting.location}`] : []),
    ...(meeting.description ? [meeting.description] : []),
  ];
}

/** A meeting's message to `reader`, with its iTIP calendar. */
export function meetingLetter(
  news: MeetingNews,
  entry: CalendarEntry,
  reader: UserRecord,
  calendar: { method: ItipMethod; content: string },
  extra: readonly Block[] = [],
): Letter {
  const { subject, lead } = headline(news, entry);
  return {
    to: { name: reader.name, address: reader.email },
    subject,
    calendar,
    ...bodyOf([`Hello ${reader.name},`, lead, ...details(news, entry, reader), ...extra]),
  };
}
