import { Args, Authorized, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { Paginated } from '../../shared/pagination';
import { Viewer } from '../../shared/viewer.decorator';
import { User } from './user.entity';
import type { UserRecord } from './user.store';
import { AccountArgs, UserSearchArgs, UserSearchSliceArgs } from './user.inputs';
import { UserConnection } from './user.types';
import type { ConnectionResult } from '../../shared/connection';

export const UserPage = Paginated(User, 'UserPage');

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

  @FieldResolver(() => Int, { description: 'How many users this user follows.' })
  followingCount(@Root() user: UserRecord, @Ctx() ctx: Context): Promise<number> {
    return ctx.loaders.followingCount.load(user.id);
  }

  @FieldResolver(() => Int, { description: 'How many users follow this user.' })
  followersCount(@Root() user: UserRecord, @Ctx() ctx: Context): Promise<number> {
    return ctx.loaders.followersCount.load(user.id);
  }
}
