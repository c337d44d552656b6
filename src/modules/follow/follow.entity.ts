import { Check, Entity, Index, ManyToOne, type Ref, Unique } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../shared/base.entity';
import { deriveRelationIds } from '../../shared/relation-ids';
import { GraphQLUUID } from '../../shared/scalars';
import { User } from '../user/user.entity';

/** `follower` follows `following`. */
@ObjectType({ simpleResolvers: true, description: 'A follow relation between two users.' })
@Entity({ tableName: 'follows' })
@Unique({ name: 'follows_pair_unique', properties: ['follower', 'following'] })
@Index({ name: 'follows_follower_recent_idx', properties: ['follower', 'createdAt'] })
@Index({ name: 'follows_following_recent_idx', properties: ['following', 'createdAt'] })
@Check({ name: 'follows_not_self', expression: 'follower_id <> following_id' })
export class Follow extends BaseEntity<'followerId' | 'followingId'> {
  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade' })
  follower!: Ref<User>;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade' })
  following!: Ref<User>;

  @Field(() => GraphQLUUID, { description: 'Id of the user who follows.' })
  readonly followerId!: string;

  @Field(() => GraphQLUUID, { description: 'Id of the user who is followed.' })
  readonly followingId!: string;
}

deriveRelationIds(Follow, { followerId: 'follower', followingId: 'following' });
