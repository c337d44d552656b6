import type { Meeting, MeetingRole } from './meeting.entity';

/** Which of the caller's meetings a list shows, and in which order of start time. */
export interface MeetingFilter {
  callerRoles?: MeetingRole[] | null;
  states?: Meeting['status'][] | null;
  startsAfter?: Date | null;
  startsBefore?: Date | null;
  order?: 'asc' | 'desc' | null;
}
