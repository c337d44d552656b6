import { MaxLength } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { NotBlank } from '../../shared/validation';

@ArgsType()
export class LoginArgs {
  @Field({ description: 'E-mail address or account name.' })
  @NotBlank()
  @MaxLength(255)
  username!: string;

  @Field({ description: 'The password (case-sensitive).' })
  @NotBlank()
  @MaxLength(1024)
  password!: string;
}

@ArgsType()
export class RefreshArgs {
  @Field({ description: 'A refresh token from an earlier grant.' })
  @NotBlank()
  @MaxLength(4096)
  refreshToken!: string;
}
