import { registerEnumType } from 'type-graphql';
import type { ChangeEntry, LoggedChange, Placed } from '../../platform/live/change-log';
import { USER_SUBJECT } from '../user';
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
 * The change log's subject types of a meeting's changes: the meeting itself, or one of its
 * participants. Either way the change's scope is the meeting, and the user a participant's
 * change concerns is its related id.
 */
export const MEETING_SUBJECTS = { meeting: 'meeting', participant: 'participant' } as const;

/** The subject types of a meeting's changes, as a list. */
export const MEETING_SUBJECT_TYPES: readonly string[] = Object.values(MEETING_SUBJECTS);

/**
 * A committed change as every instance reads it from the change log: ids and a kind only, never
 * content, and its cursor. Each instance reads what a subscriber may see itself, as that subscriber.
 */
export interface ChangeNotice extends Placed {
  kind: string;
  /** The meeting it happened to (a change of a meeting or of one of its participants). */
  meetingId: string | null;
  /** The participant it happened to, if it happened to one. */
  participantId: string | null;
  /** The user it concerns: a participant's user, or the user a user's change is about. */
  userId: string | null;
  /** Who made it, when recorded (a follow: the follower). */
  actorId: string | null;
  /** When it was made, ISO 8601. */
  occurredAt: string;
}

/** What a logged change says in the words of meetings and users (see MEETING_SUBJECTS). */
export function noticeOf(change: LoggedChange): ChangeNotice {
  const { subjectType } = change;
  const ofMeeting =
    subjectType === MEETING_SUBJECTS.meeting || subjectType === MEETING_SUBJECTS.participant;
  return {
    cursor: change.cursor,
    kind: change.kind,
    meetingId: ofMeeting ? change.scopeId : null,
    participantId: subjectType === MEETING_SUBJECTS.participant ? change.subjectId : null,
    userId: subjectType === USER_SUBJECT ? change.subjectId : change.relatedId,
    actorId: change.actorId,
    occurredAt: change.occurredAt,
  };
}

const MEETING_KINDS = new Set<string>(Object.values(MeetingEventKind));

/** A meeting's event: a change of a kind of MeetingEventKind, to a meeting. */
export type MeetingNotice = ChangeNotice & { kind: MeetingEventKind; meetingId: string };

/** Whether a logged change is a meeting's event (the log also holds follows and profile edits). */
export const isMeetingEvent = (notice: ChangeNotice): notice is MeetingNotice =>
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
  return all.map((change) => meetingEntry(meetingId, change, occurredAt));
}

/** A change to meeting `meetingId` (or to one of its participants) as the change log records it. */
export function meetingEntry(
  meetingId: string,
  change: MeetingChange,
  occurredAt: string,
): ChangeEntry {
  const { participantId } = change;
  return {
    kind: change.kind,
    ...(participantId
      ? { subjectType: MEETING_SUBJECTS.participant, subjectId: participantId }
      : { subjectType: MEETING_SUBJECTS.meeting, subjectId: meetingId }),
    scopeId: meetingId,
    relatedId: change.userId ?? null,
    occurredAt,
  };
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
