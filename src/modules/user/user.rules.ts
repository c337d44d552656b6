import { registerEnumType } from 'type-graphql';
import type { User } from './user.entity';
import type { AccessClaims, CallerLookup } from '../../platform/auth/tokens';
import type { UserRecord, UserStore } from './user.store';

/** What a user may do beyond their own data (the `roles` column). */
export enum Role {
  USER = 'user',
  ADMIN = 'admin',
}
registerEnumType(Role, { name: 'Role', description: 'What a user may do beyond their own data.' });

/**
 * Who others can see, find, follow, invite or sign in as: an active user who is not deleted.
 * The one statement of that rule, as an ORM filter, as SQL and as a check of a loaded user.
 */
export const VISIBLE_USER = { isActive: true, deletedAt: null } as const;

/** VISIBLE_USER for SQL over `users` under the alias `alias`. */
export const visibleUserSql = (alias: string): string =>
  `${alias}."is_active" = true and ${alias}."deleted_at" is null`;

/** Admins and superusers may see and manage every meeting. */
export const isAdmin = (user: Pick<User, 'roles' | 'isSuperuser'>): boolean =>
  user.roles === Role.ADMIN || user.isSuperuser;

/** True when the user (a record or an entity) is visible. */
export function isVisibleUser<T extends Pick<User, 'isActive' | 'deletedAt'>>(
  user: T | null,
): user is T {
  return user !== null && user.isActive === VISIBLE_USER.isActive && user.deletedAt === null;
}

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
