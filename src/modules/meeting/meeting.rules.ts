import { ParticipantStatus } from './participants/participant.entity';
import { isAdmin, type UserRecord } from '../user';
import { MeetingStatus } from './meeting.entity';

type Viewer = Pick<UserRecord, 'id' | 'roles' | 'isSuperuser'>;

/** Cancelled and completed meetings take no more changes. */
export const isClosed = (meeting: { status: MeetingStatus }): boolean =>
  meeting.status === MeetingStatus.CANCELLED || meeting.status === MeetingStatus.COMPLETED;

/** Who may manage a meeting (add participants): its owner or an admin. */
export function managesMeeting(viewer: Viewer, meeting: { ownerId: string }): boolean {
  return isAdmin(viewer) || meeting.ownerId === viewer.id;
}

/**
 * Who may see a meeting: its owner, a participant, or an admin. To anyone else it does not exist
 * (they are told MEETING_NOT_FOUND, never FORBIDDEN).
 */
export function seesMeeting(
  viewer: Viewer,
  meeting: { ownerId: string },
  participants: readonly { userId: string }[],
): boolean {
  return (
    managesMeeting(viewer, meeting) ||
    participants.some((participant) => participant.userId === viewer.id)
  );
}

/**
 * The users who may see a meeting besides the admins, as a list: `seesMeeting`'s rule, which it
 * does not call (it answers each read, and a list made per read cost the meeting reads 7-22% more
 * CPU in an A/B); test/unit/meeting-rules.test.ts holds the two to one answer.
 */
export function seenBy(
  meeting: { ownerId: string },
  participants: readonly { userId: string }[],
): string[] {
  return [meeting.ownerId, ...participants.map((participant) => participant.userId)];
}

/** The answers that decide a meeting's status: who answered, and how. */
export interface Answer {
  userId: string;
  status: ParticipantStatus;
}

/**
 * A meeting's status after its participants answered: cancelled once every participant but the
 * owner declined, confirmed once everyone accepted, otherwise pending. Closed meetings stay closed.
 */
export function statusAfterAnswers(
  current: MeetingStatus,
  ownerId: string,
  answers: readonly Answer[],
): MeetingStatus {
  if (isClosed({ status: current })) {
    return current;
  }
  const guests = answers.filter((answer) => answer.userId !== ownerId);
  if (guests.length > 0 && guests.every((answer) => answer.status === ParticipantStatus.DECLINED)) {
    return MeetingStatus.CANCELLED;
  }
  if (
    answers.length > 0 &&
    answers.every((answer) => answer.status === ParticipantStatus.ACCEPTED)
  ) {
    return MeetingStatus.CONFIRMED;
  }
  return MeetingStatus.PENDING;
}

/**
 * A meeting's status after a participant left or was removed: a pending meeting whose remaining
 * guests have all accepted is confirmed. Nothing else changes: leaving is not declining.
 */
export function statusAfterDeparture(
  current: MeetingStatus,
  ownerId: string,
  remaining: readonly Answer[],
): MeetingStatus {
  const confirmed = statusAfterAnswers(current, ownerId, remaining) === MeetingStatus.CONFIRMED;
  return current === MeetingStatus.PENDING && confirmed ? MeetingStatus.CONFIRMED : current;
}

/** A rescheduled meeting asks again: each guest's answer goes back to new; the owner's stays. */
export function answerAfterReschedule(ownerId: string, answer: Answer): ParticipantStatus {
  return answer.userId === ownerId ? answer.status : ParticipantStatus.NEW;
}

/** Why a meeting cannot be marked as held. */
export type CompletionRefusal = 'MEETING_CLOSED' | 'MEETING_NOT_CONFIRMED' | 'MEETING_NOT_STARTED';

/**
 * Why a meeting cannot be completed at `now`, or null when it can: it must be confirmed and have
 * started. A completed meeting may be completed again, changing nothing; a cancelled one is closed.
 */
export function completionRefusal(
  meeting: { status: MeetingStatus; startTime: string },
  now: Date,
): CompletionRefusal | null {
  switch (meeting.status) {
    case MeetingStatus.COMPLETED:
      return null;
    case MeetingStatus.CANCELLED:
      return 'MEETING_CLOSED';
    case MeetingStatus.PENDING:
      return 'MEETING_NOT_CONFIRMED';
    case MeetingStatus.CONFIRMED:
      return Date.parse(meeting.startTime) <= now.getTime() ? null : 'MEETING_NOT_STARTED';
  }
}
