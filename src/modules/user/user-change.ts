import type { ChangeEntry } from '../../platform/live/change-log';

/** The change log's subject type of a change to a user (their profile, address, follows). */
export const USER_SUBJECT = 'user';

/** What the change log says of a profile edit. */
export const PROFILE_UPDATED = 'PROFILE_UPDATED';

/** What the change log says when a user's address needs its verification message (mail). */
export const EMAIL_VERIFICATION_REQUESTED = 'EMAIL_VERIFICATION_REQUESTED';

/**
 * A change to user `userId` made by `actorId` (a follow: the follower; otherwise the user
 * themselves), as the change log records it: a user's changes belong to no aggregate.
 */
export const userChange = (kind: string, userId: string, actorId: string): ChangeEntry => ({
  kind,
  subjectType: USER_SUBJECT,
  subjectId: userId,
  scopeId: null,
  actorId,
  occurredAt: new Date().toISOString(),
});

/** The change that asks for `userId`'s verification message. */
export const verificationRequested = (userId: string): ChangeEntry =>
  userChange(EMAIL_VERIFICATION_REQUESTED, userId, userId);
