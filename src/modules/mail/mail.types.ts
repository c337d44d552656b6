import { Field, ObjectType } from 'type-graphql';

@ObjectType({ simpleResolvers: true, description: 'The result of verifyEmail.' })
export class VerifyEmailPayload {
  // Not the user: only the own-account mutations answer a User (the token may be anyone's).
  @Field({ description: 'Whether the address is verified now (true; again: no change).' })
  verified!: boolean;
}

@ObjectType({ simpleResolvers: true, description: 'The result of resendVerificationEmail.' })
export class ResendVerificationEmailPayload {
  @Field({
    description:
      'Whether a new verification message was asked for (false when the address is verified).',
  })
  sent!: boolean;
}
