import { IsUUID } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { NotBlank } from '../../shared/validation';

@ArgsType()
export class UserIdArgs {
  @Field({ description: 'Id of the other user (UUID).' })
  @NotBlank()
  @IsUUID()
  userId!: string;
}
