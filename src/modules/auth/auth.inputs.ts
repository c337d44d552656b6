import { MaxLength, MinLength } from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { NotBlank } from '../../platform/shared/validation';
import { USER_LIMITS } from '../user';

@InputType({ description: 'A sign-in with a password (the password grant of RFC 6749).' })
export class LoginInput {
  @Field({ description: 'E-mail address or account name.' })
  @NotBlank()
  @MaxLength(255)
  username!: string;

  @Field({ description: 'The password (case-sensitive).' })
  @NotBlank()
  @MaxLength(1024)
  password!: string;
}

@InputType({ description: 'A refresh token to trade (the refresh_token grant of RFC 6749).' })
export class RefreshTokenInput {
  @Field({ description: 'A refresh token from an earlier grant.' })
  @NotBlank()
  @MaxLength(4096)
  refreshToken!: string;
}

@InputType({ description: "A change of the caller's own password." })
export class ChangePasswordInput {
  @Field({ description: 'The current password (case-sensitive).' })
  @NotBlank()
  @MaxLength(1024)
  currentPassword!: string;

  @Field({ description: 'The new password, 8 to 128 characters, case-sensitive.' })
  @NotBlank()
  @MinLength(USER_LIMITS.password.min)
  @MaxLength(USER_LIMITS.password.max)
  newPassword!: string;
}

@InputType({ description: 'The session to end.' })
export class LogoutInput {
  @Field({ description: 'A refresh token of the session; its whole family is revoked.' })
  @NotBlank()
  @MaxLength(4096)
  refreshToken!: string;
}
