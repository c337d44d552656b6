import { Field, Int, ObjectType } from 'type-graphql';
import type { IssuedTokens } from '../../platform/auth/tokens';
import { User, type UserRecord } from '../user';

@ObjectType({ simpleResolvers: true, description: 'Tokens issued by a grant (RFC 6749 §5.1).' })
export class TokenPair implements IssuedTokens {
  @Field({ description: 'JWT access token for the Authorization: Bearer header.' })
  accessToken!: string;

  @Field({ description: 'Token that obtains a new pair through refreshToken.' })
  refreshToken!: string;

  @Field(() => String, { description: 'Always "bearer".' })
  tokenType!: 'bearer';

  @Field(() => Int, { description: 'Seconds until the access token expires.' })
  expiresIn!: number;
}

@ObjectType({ simpleResolvers: true, description: 'The answer to changePassword.' })
export class ChangePasswordPayload {
  @Field(() => User, { description: 'The caller, with the new password in force.' })
  user!: UserRecord;

  @Field(() => TokenPair, {
    description:
      'A new session for the caller: every earlier refresh token of theirs has been revoked.',
  })
  tokens!: TokenPair;
}

@ObjectType({ simpleResolvers: true, description: 'The answer to logout.' })
export class LogoutPayload {
  @Field({
    description: 'Whether a live session was ended (false when it had already ended).',
  })
  sessionEnded!: boolean;
}

@ObjectType({ simpleResolvers: true, description: 'The result of register.' })
export class RegisterPayload {
  @Field(() => User, { description: 'The new account (role user, no privileges).' })
  user!: UserRecord;
}

/** What a grant answers: the tokens it issued. */
@ObjectType({ simpleResolvers: true })
abstract class GrantPayload {
  @Field(() => TokenPair, { description: 'The tokens issued.' })
  tokens!: TokenPair;
}

@ObjectType({ simpleResolvers: true, description: 'The result of login.' })
export class LoginPayload extends GrantPayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of refreshToken.' })
export class RefreshTokenPayload extends GrantPayload {}
