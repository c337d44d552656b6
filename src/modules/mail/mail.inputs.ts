import { IsString, MaxLength, MinLength } from 'class-validator';
import { Field, InputType } from 'type-graphql';

@InputType({ description: 'The token of a verification link.' })
export class VerifyEmailInput {
  @Field({
    description:
      'The `token` of the link in the verification message (<PUBLIC_URL>/verify-email?token=…).',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(1000)
  token!: string;
}
