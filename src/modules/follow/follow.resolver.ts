import {
  Arg,
  Args,
  Authorized,
  Ctx,
  FieldResolver,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import type { Context } from './follow.context';
import { PageArgs, Paginated } from '../../platform/shared/pagination';
import { Viewer } from '../../platform/auth/tokens';
import { User, type UserRecord } from '../user';
import { Follow } from './follow.entity';
import type { FollowRecord } from './follow.store';
import { FollowInput, UnfollowInput, UserIdArgs } from './follow.inputs';
import { FollowConnection, FollowPayload, FollowStatusType, UnfollowPayload } from './follow.types';
import { ConnectionArgs, type ConnectionResult } from '../../platform/graphql/connection';
import type { Known } from '../../platform/shared/known-loader';

export const FollowPage = Paginated(Follow, 'FollowPage');
const FollowListArgs = PageArgs(null);
type FollowListArgs = InstanceType<typeof FollowListArgs>;

@Resolver(() => Follow)
export class FollowResolver {
  @Authorized()
  @Query(() => FollowPage, {
    name: 'following',
    description: 'The users the caller follows, newest first.',
  })
  followingList(
    @Args(() => FollowListArgs) page: FollowListArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.follows.list(viewer, 'following', page);
  }

  @Authorized()
  @Query(() => FollowPage, {
    name: 'followers',
    description: 'The users who follow the caller, newest first.',
  })
  followersList(
    @Args(() => FollowListArgs) page: FollowListArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.follows.list(viewer, 'followers', page);
  }

  @Authorized()
  @Query(() => FollowConnection.type, {
    description: 'The follows of the caller (the users they follow), newest first, in slices.',
  })
  followingConnection(
    @Args() slice: ConnectionArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<ConnectionResult<FollowRecord>> {
    return ctx.services.follows.slice(viewer, 'following', slice);
  }

  @Authorized()
  @Query(() => FollowConnection.type, {
    description: 'The follows of the caller by others (their followers), newest first, in slices.',
  })
  followersConnection(
    @Args() slice: ConnectionArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<ConnectionResult<FollowRecord>> {
    return ctx.services.follows.slice(viewer, 'followers', slice);
  }

  @Authorized()
  @Query(() => FollowStatusType, {
    description: 'Whether the caller and a user follow each other.',
  })
  followStatus(@Args() args: UserIdArgs, @Viewer() viewer: UserRecord, @Ctx() ctx: Context) {
    return ctx.services.follows.status(viewer, args.userId);
  }

  @Authorized()
  @Mutation(() => FollowPayload, {
    description: 'Follows a user (following again changes nothing).',
  })
  async follow(
    @Arg('input', { description: 'The user to follow.' }) input: FollowInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<FollowPayload> {
    return { follow: await ctx.services.follows.follow(viewer, input.userId) };
  }

  @Authorized()
  @Mutation(() => UnfollowPayload, {
    description: 'Stops following a user; true when a follow was removed.',
  })
  async unfollow(
    @Arg('input', { description: 'The user to stop following.' }) input: UnfollowInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<UnfollowPayload> {
    return {
      unfollowed: await ctx.services.follows.unfollow(viewer, input.userId),
    };
  }

  @FieldResolver(() => User, { name: 'follower', description: 'The user who follows.' })
  followerUser(@Root() follow: FollowRecord, @Ctx() ctx: Context): Known<UserRecord | null> {
    return ctx.loaders.users.get(follow.followerId);
  }

  @FieldResolver(() => User, { name: 'following', description: 'The user who is followed.' })
  followingUser(@Root() follow: FollowRecord, @Ctx() ctx: Context): Known<UserRecord | null> {
    return ctx.loaders.users.get(follow.followingId);
  }
}
