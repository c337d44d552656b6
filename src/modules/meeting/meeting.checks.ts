import { NotFoundError } from '../../platform/shared/errors';
import { type ResourceLoaders, resourceNotFound } from '../resource';
import { userNotFound, type UserRecord } from '../user';
import { seesMeeting } from './meeting.rules';
import type { MeetingStores } from './meeting.stores';
import type { LockedMeeting, MeetingRecord } from './meeting.store';

/*
 * The checks a meeting write makes before it changes anything: that what it names exists, and
 * that the viewer may see the meeting it locks.
 */

export const meetingNotFound = () => new NotFoundError('MEETING_NOT_FOUND', 'Meeting not found');

/** Every id given names a resource, or RESOURCE_NOT_FOUND (one statement, when there are any). */
export async function requireResources(
  loaders: Pick<ResourceLoaders, 'resources'>,
  ids: readonly string[],
): Promise<void> {
  const found = ids.length > 0 ? await loaders.resources.loadMany(ids) : [];
  if (found.some((resource) => !resource || resource instanceof Error)) {
    throw resourceNotFound();
  }
}

/**
 * Every id given names a visible user, or USER_NOT_FOUND. Ids come lower-cased, so one user given
 * in two letter cases counts once.
 */
export async function requireVisibleUsers(
  stores: MeetingStores,
  ids: ReadonlyArray<string | null | undefined>,
): Promise<void> {
  const referenced = [...new Set(ids.filter((id): id is string => !!id))];
  if ((await stores.users.countVisible(referenced)) !== referenced.length) {
    throw userNotFound();
  }
}

/**
 * Locks the meeting for the transaction, then `read`s its participants (and what else the caller
 * needs with them, in the same statement), and checks that the viewer may see it.
 */
export async function lockVisible<R extends Pick<LockedMeeting, 'participants'>>(
  tx: MeetingStores,
  viewer: UserRecord,
  meetingId: string,
  read: (meeting: MeetingRecord) => Promise<R>,
): Promise<R & Pick<LockedMeeting, 'meeting'>> {
  const meeting = await tx.meetings.lock(meetingId);
  const locked = meeting && { ...(await read(meeting)), meeting };
  if (!locked || !seesMeeting(viewer, locked.meeting, locked.participants)) {
    throw meetingNotFound();
  }
  return locked;
}
