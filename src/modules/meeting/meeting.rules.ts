import { ParticipantStatus } from '../participant/participant.entity';
import { MeetingStatus } from './meeting.entity';

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
  if (current === MeetingStatus.CANCELLED || current === MeetingStatus.COMPLETED) {
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
