import { ArrayType, HiddenProps } from '@mikro-orm/core';
import { Check, Entity, Enum, Index, Property } from '@mikro-orm/decorators/legacy';
import { GraphQLEmailAddress, GraphQLLocalDate, GraphQLUUID } from '../../platform/shared/scalars';
import { Node } from '../../platform/graphql/node-interface';
import { Field, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../platform/shared/base.entity';
import { DEFAULT_TIME_ZONE, TIME_ZONE_MAX_LENGTH } from '../../platform/shared/time-zone';
import { Role } from './user.role';
import type { WorkingPeriodRecord } from './working-hours';
import { MAIL_TOPIC_NAMES } from './mail-preferences';

/** Limits shared by the database constraints, the input validation and the docs. */
export const USER_LIMITS = {
  name: { min: 8, max: 40 },
  email: { max: 255 },
  account: { min: 3, max: 32 },
  password: { min: 8, max: 128 },
  bio: { max: 200 },
  phone: { max: 20 },
} as const;

/** A registered person. The password hash never leaves the service. */
@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A registered user (public record, without sensitive data).',
})
@Entity({ tableName: 'users' })
@Index({ name: 'users_name_id_idx', properties: ['name', 'id'] })
@Index({
  name: 'users_search_trgm_idx',
  expression:
    'create index "users_search_trgm_idx" on "users" using gin ("name" gin_trgm_ops, "account" gin_trgm_ops, "email" gin_trgm_ops)',
})
@Check({ name: 'users_name_length', expression: 'char_length(name) >= 8' })
@Check({ name: 'users_email_lower', expression: 'email = lower(email)' })
@Check({ name: 'users_account_format', expression: "account ~ '^[a-z0-9._-]{3,32}$'" })
@Check({
  name: 'users_mail_muted_topics',
  expression: `mail_muted <@ array[${MAIL_TOPIC_NAMES.map((topic) => `'${topic}'`).join(', ')}]::text[]`,
})
export class User extends BaseEntity<
  | 'roles'
  | 'isActive'
  | 'isVerified'
  | 'isSuperuser'
  | 'bio'
  | 'dob'
  | 'phone'
  | 'avatarPhotoId'
  | 'deletedAt'
  | 'shareAvailability'
  | 'emailVerified'
  | 'timeZone'
  | 'workingHours'
  | 'mailMuted'
> {
  @Field({ description: 'Display name, 8 to 40 characters.' })
  @Property({ length: USER_LIMITS.name.max })
  name!: string;

  @Field(() => GraphQLEmailAddress, { description: 'E-mail address, stored lower-cased.' })
  @Property({ length: USER_LIMITS.email.max })
  @Index({
    name: 'users_email_unique',
    expression: 'create unique index "users_email_unique" on "users" (lower("email"))',
  })
  email!: string;

  @Field({ description: 'Account name: 3 to 32 of a-z, 0-9, dot, underscore, hyphen.' })
  @Property({ length: USER_LIMITS.account.max })
  @Index({
    name: 'users_account_unique',
    expression: 'create unique index "users_account_unique" on "users" (lower("account"))',
  })
  account!: string;

  /** Never read by queries nor answered: the read model leaves hidden properties out. */
  [HiddenProps]?: 'passwordHash';

  @Property({ hidden: true, lazy: true, length: 255 })
  passwordHash!: string;

  @Field(() => Role, { description: 'The role: user or admin.' })
  @Enum({ items: () => Role, nativeEnumName: 'user_role', default: Role.USER })
  roles: Role = Role.USER;

  @Field({ description: 'Inactive users cannot sign in and are hidden from search.' })
  @Property({ default: true })
  isActive: boolean = true;

  @Field({ description: 'Whether the e-mail address was verified.' })
  @Property({ default: true })
  isVerified: boolean = true;

  @Field({
    description:
      'Whether the user proved the e-mail address theirs (the link of the verification ' +
      'message); no other message is sent to an unverified address.',
  })
  @Property({ default: false })
  emailVerified: boolean = false;

  @Field({ description: 'Superusers may see and change everything.' })
  @Property({ default: false })
  isSuperuser: boolean = false;

  @Field(() => String, { nullable: true, description: 'Short biography, at most 200 characters.' })
  @Property({ type: 'string', length: USER_LIMITS.bio.max, nullable: true })
  bio: string | null = null;

  @Field(() => GraphQLLocalDate, { nullable: true, description: 'Date of birth (YYYY-MM-DD).' })
  @Property({ type: 'date', nullable: true })
  dob: string | null = null;

  @Field(() => String, { nullable: true, description: 'Phone number, at most 20 characters.' })
  @Property({ type: 'string', length: USER_LIMITS.phone.max, nullable: true })
  phone: string | null = null;

  @Field(() => GraphQLUUID, { nullable: true, description: 'Id of the avatar photo, if any.' })
  @Property({ type: 'uuid', nullable: true })
  avatarPhotoId: string | null = null;

  @Field(() => GraphQLLocalDate, {
    nullable: true,
    description: 'Date of deletion (YYYY-MM-DD), if deleted.',
  })
  @Property({ type: 'date', nullable: true })
  deletedAt: string | null = null;

  @Field({
    description:
      'Whether others may see when the user is busy (freeBusy, conflicts); titles never show.',
  })
  @Property({ default: true })
  shareAvailability: boolean = true;

  @Field({
    description:
      `The IANA time zone the user lives in (default ${DEFAULT_TIME_ZONE}): the times of ` +
      'messages to the user and of the working hours are read in it.',
  })
  @Property({ length: TIME_ZONE_MAX_LENGTH, default: DEFAULT_TIME_ZONE })
  timeZone: string = DEFAULT_TIME_ZONE;

  /**
   * The working week, wall-clock periods in the user's zone (by day, then start); null: the
   * default week (WORKING_HOURS_LIMITS). Shown through a field that hides it as busy time is hidden.
   */
  @Property({ type: 'json', nullable: true })
  workingHours: WorkingPeriodRecord[] | null = null;

  /**
   * The kinds of mail (MAIL_TOPICS) the user turned off, through updateProfile or an unsubscribe
   * link; shown to the user only, as User.mailPreferences.
   */
  @Property({ type: ArrayType, columnType: 'text[]', defaultRaw: `'{}'` })
  mailMuted: string[] = [];
}
