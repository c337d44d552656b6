import { Field, ObjectType } from 'type-graphql';
import { Connection } from '../../platform/graphql/connection';
import { Follow } from './follow.entity';
import type { FollowRecord } from './follow.store';
import type { FollowStatus } from './follow.service';

@ObjectType('FollowStatus', {
  simpleResolvers: true,
  description: 'How the caller and another user follow each other.',
})
export class FollowStatusType implements FollowStatus {
  @Field({ description: 'The caller follows the user.' })
  isFollowing!: boolean;

  @Field({ description: 'The user follows the caller.' })
  isFollowedBy!: boolean;

  @Field({ description: 'Both follow each other.' })
  isMutual!: boolean;
}

/** Slices of follow lists. */
export const FollowConnection = Connection(Follow, 'Follow');

@ObjectType({ simpleResolvers: true, description: 'The result of follow.' })
export class FollowPayload {
  @Field(() => Follow, { description: 'The follow, new or as it already was.' })
  follow!: FollowRecord;
}

@ObjectType({ simpleResolvers: true, description: 'The result of unfollow.' })
export class UnfollowPayload {
  @Field({ description: 'Whether a follow was removed (false when there was none).' })
  unfollowed!: boolean;
}
