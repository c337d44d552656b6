import { ArgsType, Field, InputType } from 'type-graphql';
import { PickInput } from '../../platform/shared/derived-inputs';
import { GraphQLUUID } from '../../platform/shared/scalars';

@ArgsType()
export class UserIdArgs {
  @Field(() => GraphQLUUID, { description: 'Id of the other user (UUID).' })
  userId!: string;
}

@InputType({ description: 'The user to follow.' })
export class FollowInput extends PickInput(UserIdArgs, ['userId']) {}

@InputType({ description: 'The user to stop following.' })
export class UnfollowInput extends PickInput(UserIdArgs, ['userId']) {}
