import {
  Arg,
  Args,
  Authorized,
  Ctx,
  Field,
  FieldResolver,
  Int,
  Mutation,
  ObjectType,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import type { Context } from './user.context';
import { Paginated } from '../../platform/shared/pagination';
import { Viewer } from '../../platform/auth/tokens';
import { User } from './user.entity';
import type { UserRecord } from './user.store';
import {
  AccountArgs,
  UpdateProfileInput,
  UserSearchArgs,
  UserSearchSliceArgs,
} from './user.inputs';
import { UserConnection } from './user.types';
import { MaxItems } from '../../platform/graphql/list-size';
import { seesAvailabilityOf } from './user.rules';
import {
  WORKING_HOURS_LIMITS,
  WorkingPeriod,
  type WorkingPeriodRecord,
  workingWeekOf,
} from './working-hours';
import type { ConnectionResult } from '../../platform/graphql/connection';
import { MailPreferences, type MailPreferenceRecord, preferencesOf } from './mail-preferences';

export const UserPage = Paginated(User, 'UserPage');

@ObjectType({ simpleResolvers: true, description: 'The answer to updateProfile.' })
export class UpdateProfilePayload {
  @Field(() => User, { description: 'The caller, as now stored.' })
  user!: UserRecord;
}

@Resolver(() => User)
export class UserResolver {
  @Authorized()
  @Query(() => User, { description: 'The authenticated user.' })
  me(@Viewer() viewer: UserRecord): UserRecord {
    return viewer;
  }

  @Authorized()
  @Query(() => User, { description: 'A user by account name.' })
  user(@Args() args: AccountArgs, @Ctx() ctx: Context): Promise<UserRecord> {
    return ctx.services.users.byAccount(args.account);
  }

  @Authorized()
  @Query(() => UserPage, {
    description: 'Active users whose name, account or e-mail contains q (case-insensitive).',
  })
  searchUsers(@Args() args: UserSearchArgs, @Ctx() ctx: Context) {
    return ctx.services.users.search(args.q, args);
  }

  @Authorized()
  @Query(() => UserConnection.type, {
    description: 'Active users whose name, account or e-mail contains q, by name, in slices.',
  })
  searchUsersConnection(
    @Args() args: UserSearchSliceArgs,
    @Ctx() ctx: Context,
  ): Promise<ConnectionResult<UserRecord>> {
    return ctx.services.users.searchSlice(args.q, args);
  }

  @Authorized()
  @Mutation(() => UpdateProfilePayload, {
    description:
      "Changes the caller's own name, bio, phone, date of birth, avatar, availability sharing " +
      "or working hours; nothing else, and never another user's.",
  })
  async updateProfile(
    @Arg('input', { description: 'The fields to change.' }) input: UpdateProfileInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<UpdateProfilePayload> {
    return { user: await ctx.services.users.updateProfile(viewer, input) };
  }

  @FieldResolver(() => Int, { description: 'How many users this user follows.' })
  followingCount(@Root() user: UserRecord, @Ctx() ctx: Context): Promise<number> {
    return ctx.loaders.followingCount.load(user.id);
  }

  @FieldResolver(() => Int, { description: 'How many users follow this user.' })
  followersCount(@Root() user: UserRecord, @Ctx() ctx: Context): Promise<number> {
    return ctx.loaders.followersCount.load(user.id);
  }

  @MaxItems(WORKING_HOURS_LIMITS.periods)
  @FieldResolver(() => [WorkingPeriod], {
    nullable: true,
    description:
      "The user's working week in their time zone, by day then start (the default: Monday to " +
      'Friday 09:00 to 17:00); null to those who may not see their availability ' +
      '(shareAvailability false), as free/busy.',
  })
  workingHours(
    @Root() user: UserRecord,
    @Ctx() ctx: Context,
  ): readonly WorkingPeriodRecord[] | null {
    const viewer = ctx.auth.user;
    return viewer && seesAvailabilityOf(viewer, user) ? workingWeekOf(user) : null;
  }

  @FieldResolver(() => MailPreferences, {
    nullable: true,
    description:
      'Which kinds of mail the user gets (updateProfile and the unsubscribe link of each message ' +
      'change them); null to anyone but the user.',
  })
  mailPreferences(@Root() user: UserRecord, @Ctx() ctx: Context): MailPreferenceRecord | null {
    return ctx.auth.user?.id === user.id ? preferencesOf(user) : null;
  }
}
