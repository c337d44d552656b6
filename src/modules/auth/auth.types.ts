import { Field, Int, ObjectType } from 'type-graphql';
import type { IssuedTokens } from '../../auth/tokens';

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
