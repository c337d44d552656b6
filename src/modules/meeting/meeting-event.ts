import { registerEnumType } from 'type-graphql';
import type { ChangeEntry, LoggedChange } from '../../platform/live/change-log';
import { MeetingStatus } from './meeting.entity';

/** What happened to a meeting. */
export enum MeetingEventKind {
  PARTICIPANT_ADDED = 'PARTICIPANT_ADDED',
  PARTICIPANT_ANSWERED = 'PARTICIPANT_ANSWERED',
  PARTICIPANT_REMOVED = 'PARTICIPANT_REMOVED',
  UPDATED = 'UPDATED',
  RESCHEDULED = 'RESCHEDULED',
  CONFIRMED = 'CONFIRMED',
  CANCELLED = 'CANCELLED',
  COMPLETED = 'COMPLETED',
  REMINDER = 'REMINDER',
}
registerEnumType(MeetingEventKind, {
  name: 'MeetingEventKind',
  description:
    'What happened to a meeting: a participant added, answering or removed (or leaving); its ' +
    'details edited; its start moved; its status now confirmed, cancelled or completed; or ' +
    'one of its reminders (reminderMinutes) before an occurrence came due.',
});

/**
 * A committed change as every instance reads it from the change log: ids and a kind only, never
 * content, and its cursor. Each instance reads what a subscriber may see itself, as that subscriber.
 */
export type ChangeNotice = LoggedChange;

const MEETING_KINDS = new Set<string>(Object.values(MeetingEventKind));

/** Whether a logged change is a meeting's event (the log also holds follows and profile edits). */
export const isMeetingEvent = (
  notice: ChangeNotice,
): notice is ChangeNotice & { kind: MeetingEventKind; meetingId: string } =>
  notice.meetingId !== null && MEETING_KINDS.has(notice.kind);

/** What a service reports about the change it made (the rest of a notice is filled in). */
export interface MeetingChange {
  kind: MeetingEventKind;
  participantId?: string;
  userId?: string;
}

/** The status changes subscribers hear of as events of their own. */
const STATUS_EVENTS: Partial<Record<MeetingStatus, MeetingEventKind>> = {
  [MeetingStatus.CONFIRMED]: MeetingEventKind.CONFIRMED,
  [MeetingStatus.CANCELLED]: MeetingEventKind.CANCELLED,
  [MeetingStatus.COMPLETED]: MeetingEventKind.COMPLETED,
};

/**
 * The notices of one committed change to a meeting: the changes the service reports, then the
 * status the meeting reached, when its status changed to one subscribers hear of.
 */
export function meetingNotices(
  meetingId: string,
  changes: readonly MeetingChange[],
  status: { before: MeetingStatus; after: MeetingStatus },
): ChangeEntry[] {
  const statusEvent = status.before === status.after ? undefined : STATUS_EVENTS[status.after];
  const all = statusEvent ? [...changes, { kind: statusEvent }] : changes;
  const occurredAt = new Date().toISOString();
  return all.map((change) => ({
    kind: change.kind,
    meetingId,
    participantId: change.participantId ?? null,
    userId: change.userId ?? null,
    occurredAt,
  }));
}

/** The local topic of a meeting's events. */
export const meetingTopic = (meetingId: string): string => `meeting:${meetingId}`;

/** The local topic of a user's invitations. */
export const invitationTopic = (userId: string): string => `invitations:${userId}`;

/** The local topic of every change (the caller's own subscription filters what they may see). */
export const ALL_CHANGES_TOPIC = 'changes';

/** The local topics a notice is delivered on. */
export function topicsOf(notice: ChangeNotice): string[] {
  const topics = [ALL_CHANGES_TOPIC];
  if (notice.meetingId) {
    topics.push(meetingTopic(notice.meetingId));
  }
  if (notice.kind === MeetingEventKind.PARTICIPANT_ADDED && notice.userId) {
    topics.push(invitationTopic(notice.userId));
  }
  return topics;
}
