import { registerEnumType } from 'type-graphql';

/** What a user may do beyond their own data (the `roles` column). */
export enum Role {
  USER = 'user',
  ADMIN = 'admin',
}
registerEnumType(Role, { name: 'Role', description: 'What a user may do beyond their own data.' });
