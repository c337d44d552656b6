import { Field, ObjectType } from 'type-graphql';
import { Connection } from '../../shared/connection';
import { Follow } from './follow.entity';
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
