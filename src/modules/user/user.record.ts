import { column, RecordReader, timestampColumn, type WithIsoTimestamps } from '../../db/records';
import { Role, type User } from './user.entity';

/** A user as reads answer it: the public columns as a plain object (an entity satisfies it too). */
export type UserRecord = WithIsoTimestamps<
  Pick<
    User,
    | 'id'
    | 'createdAt'
    | 'updatedAt'
    | 'name'
    | 'email'
    | 'account'
    | 'roles'
    | 'isActive'
    | 'isVerified'
    | 'isSuperuser'
    | 'bio'
    | 'dob'
    | 'phone'
    | 'avatarPhotoId'
    | 'deletedAt'
  >
>;

/** Admins and superusers may see and manage every meeting. */
export const isAdmin = (user: Pick<UserRecord, 'roles' | 'isSuperuser'>): boolean =>
  user.roles === Role.ADMIN || user.isSuperuser;

/** Reads user records from columns aliased with `prefix`. */
export const userRecords = (prefix = ''): RecordReader<UserRecord> =>
  new RecordReader<UserRecord>(
    {
      id: column('id'),
      createdAt: timestampColumn('created_at'),
      updatedAt: timestampColumn('updated_at'),
      name: column('name'),
      email: column('email'),
      account: column('account'),
      roles: column('roles'),
      isActive: column('is_active'),
      isVerified: column('is_verified'),
      isSuperuser: column('is_superuser'),
      bio: column('bio'),
      dob: column('dob'),
      phone: column('phone'),
      avatarPhotoId: column('avatar_photo_id'),
      deletedAt: column('deleted_at'),
    },
    prefix,
  );
