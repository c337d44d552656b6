import { ConflictError, ForbiddenError } from '../../platform/shared/errors';
import { refusingOverlaps } from '../resource';
import type { UserRecord } from '../user';
import { type MeetingChange, meetingNotices } from './meeting-event';
import { isClosed, managesMeeting } from './meeting.rules';
import { lockVisible } from './meeting.checks';
import type { MeetingStores } from './meeting.stores';
import { freeIfCancelled } from './resources/booking-plan';
import type { LockedMeeting, MeetingLoaders, MeetingRecord } from './meeting.store';

/**
 * What a change to a locked meeting did: the meeting as it now is, and the change subscribers
 * hear of (none: nothing besides the status).
 */
export interface Outcome {
  meeting: MeetingRecord;
  change?: MeetingChange | null;
}

/** Refuses a caller who sees the meeting but neither owns it nor is an admin. */
export function requireManager(viewer: UserRecord, meeting: MeetingRecord, reason: string): void {
  if (!managesMeeting(viewer, meeting)) {
    throw new ForbiddenError(reason, 'Only the meeting owner can do this');
  }
}

export const meetingClosed = () => new ConflictError('MEETING_CLOSED', 'The meeting is closed');

export function requireOpen(meeting: MeetingRecord): void {
  if (isClosed(meeting)) {
    throw meetingClosed();
  }
}

/**
 * Locks the meeting, lets `work` check it and write its changes, commits, and answers the
 * meeting as `work` left it. A meeting the viewer cannot see does not exist for them. `work`
 * reports the change it made (none: nothing besides the status), which subscribers hear of when
 * the transaction commits. A booking the database refuses is RESOURCE_BUSY. Cached reads of the
 * meeting are dropped.
 */
export async function changeLocked(
  stores: MeetingStores,
  loaders: Pick<MeetingLoaders, 'forgetMeeting'>,
  viewer: UserRecord,
  meetingId: string,
  work: (locked: LockedMeeting, tx: MeetingStores) => Promise<Outcome>,
): Promise<MeetingRecord> {
  const meeting = await refusingOverlaps(stores.resources, () =>
    stores.transaction(async (tx) => {
      const locked = await lockVisible(tx, viewer, meetingId, () =>
        tx.participants.ofLocked(meetingId),
      );
      const { meeting: after, change } = await work(locked, tx);
      await freeIfCancelled(tx, locked.meeting, after);
      await tx.events.append(
        meetingNotices(after.id, change ? [change] : [], {
          before: locked.meeting.status,
          after: after.status,
        }),
      );
      return after;
    }),
  );
  loaders.forgetMeeting(meetingId);
  return meeting;
}
