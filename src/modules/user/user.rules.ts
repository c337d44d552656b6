import { Role } from './user.role';
import type { User } from './user.entity';

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

/**
 * Whether `viewer` may see when `user` is busy or working (free/busy, conflicts, working hours):
 * their own, and that of users who share it.
 */
export const seesAvailabilityOf = (
  viewer: Pick<User, 'id'>,
  user: Pick<User, 'id' | 'shareAvailability'>,
): boolean => user.id === viewer.id || user.shareAvailability;

/** True when the user (a record or an entity) is visible. */
export function isVisibleUser<T extends Pick<User, 'isActive' | 'deletedAt'>>(
  user: T | null,
): user is T {
  return user !== null && user.isActive === VISIBLE_USER.isActive && user.deletedAt === null;
}

export { Role };
