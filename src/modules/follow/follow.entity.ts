import { Check, Entity, Index, ManyToOne, Unique } from '@mikro-orm/decorators/legacy';
import { Node } from '../../platform/graphql/node-interface';
import { Field, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../platform/shared/base.entity';
import { GraphQLUUID } from '../../platform/shared/scalars';
import { User } from '../user';

/** `follower` follows `following`. */
@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A follow relation between two users.',
})
@Entity({ tableName: 'follows' })
@Unique({ name: 'follows_pair_unique', properties: ['followerId', 'followingId'] })
@Index({ name: 'follows_follower_recent_idx', properties: ['followerId', 'createdAt'] })
@Index({ name: 'follows_following_recent_idx', properties: ['followingId', 'createdAt'] })
@Check({ name: 'follows_not_self', expression: 'follower_id <> following_id' })
export class Follow extends BaseEntity {
  @Field(() => GraphQLUUID, { description: 'Id of the user who follows.' })
  @ManyToOne(() => User, { mapToPk: true, fieldName: 'follower_id', deleteRule: 'cascade' })
  followerId!: string;

  @Field(() => GraphQLUUID, { description: 'Id of the user who is followed.' })
  @ManyToOne(() => User, { mapToPk: true, fieldName: 'following_id', deleteRule: 'cascade' })
  followingId!: string;
}
