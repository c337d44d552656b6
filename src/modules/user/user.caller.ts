import type { AccessClaims, CallerLookup } from '../../platform/auth/tokens';
import { isVisibleUser } from './user.rules';
import type { UserRecord, UserStore } from './user.store';

/**
 * The user a verified token names: visible, and still in the sign-in session the token belongs
 * to. Read from the database on every request (no cache), so a session ended on any instance is
 * refused as soon as that commits.
 */
export function callerLookup(users: UserStore): CallerLookup<UserRecord> {
  return async (claims: AccessClaims) => {
    const user = await sessionUser(claims, users);
    return isVisibleUser(user) ? user : null;
  };
}

async function sessionUser(claims: AccessClaims, users: UserStore): Promise<UserRecord | null> {
  const { subject, sessionId } = claims;
  if (sessionId === null || !('userId' in subject)) {
    return users.bySubject(subject);
  }
  const found = await users.inSession(subject.userId, sessionId);
  return found && !found.sessionEnded ? found.user : null;
}
