import { ArgsType, Field } from 'type-graphql';
import { GraphQLUUID } from '../../shared/scalars';

@ArgsType()
export class UserIdArgs {
  @Field(() => GraphQLUUID, { description: 'Id of the other user (UUID).' })
  userId!: string;
}
