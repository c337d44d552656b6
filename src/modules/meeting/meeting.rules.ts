import { ParticipantStatus } from '../participant/participant.entity';
import type { UserRecord } from '../user/user.store';
import { isAdmin } from '../user/user.rules';
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
