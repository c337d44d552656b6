import {
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ArgsType, Field, InputType } from 'type-graphql';
import { ConnectionArgs } from '../../platform/graphql/connection';
import { GraphQLLocalDate, GraphQLUUID } from '../../platform/shared/scalars';
import { PageArgs } from '../../platform/shared/pagination';
import { DEFAULT_TIME_ZONE } from '../../platform/shared/time-zone';
import {
  EqualsProperty,
  IsTimeZone,
  IsTrimmedEmail,
  NotOneOf,
  NotBlank,
  TrimmedMaxLength,
  TrimmedMinLength,
} from '../../platform/shared/validation';
import { USER_LIMITS } from './user.entity';
import { WORKING_HOURS_LIMITS, type WorkingPeriodInput, WorkingWeekField } from './working-hours';
import { MailPreferencesInput } from './mail-preferences';

@InputType({ description: 'A new account: exactly the five documented fields.' })
export class RegisterInput {
  @Field({ description: 'Display name, 8 to 40 characters (trimmed).' })
  @NotBlank()
  @TrimmedMinLength(USER_LIMITS.name.min)
  @TrimmedMaxLength(USER_LIMITS.name.max)
  name!: string;

  @Field({ description: 'Account name, 3 to 32 of a-z 0-9 . _ - (stored lower-cased).' })
  @NotBlank()
  @TrimmedMinLength(USER_LIMITS.account.min)
  @TrimmedMaxLength(USER_LIMITS.account.max)
  @Matches(/^\s*[A-Za-z0-9._-]+\s*$/)
  // These are REST path segments beside /user/{account}.
  @NotOneOf(['me', 'search'])
  account!: string;

  @Field({ description: 'E-mail address, at most 255 characters (stored lower-cased).' })
  @NotBlank()
  @TrimmedMaxLength(USER_LIMITS.email.max)
  @IsTrimmedEmail()
  email!: string;

  @Field({ description: 'Password, 8 to 128 characters, case-sensitive.' })
  @NotBlank()
  @MinLength(USER_LIMITS.password.min)
  @MaxLength(USER_LIMITS.password.max)
  password!: string;

  @Field({ description: 'The same password again.' })
  @IsString()
  @EqualsProperty('password')
  passwordConfirm!: string;
}

/** The search text of both user searches: its field and its rules. */
const SearchText = (): PropertyDecorator => (target, key) => {
  for (const decorate of [
    Field({ description: 'Text to find in name, account or e-mail (2 to 100 characters).' }),
    NotBlank(),
    TrimmedMinLength(2),
    TrimmedMaxLength(100),
  ]) {
    decorate(target, key);
  }
};

@ArgsType()
export class UserSearchArgs extends PageArgs(20) {
  @SearchText()
  q!: string;
}

@ArgsType()
export class UserSearchSliceArgs extends ConnectionArgs {
  @SearchText()
  q!: string;
}

@ArgsType()
export class AccountArgs {
  @Field({ description: 'The account name of the user.' })
  @NotBlank()
  @TrimmedMaxLength(USER_LIMITS.account.max)
  account!: string;
}

@InputType({
  description:
    "Changes to the caller's own profile: a field left out stays as it is, null clears it.",
})
export class UpdateProfileInput {
  @Field(() => String, {
    nullable: true,
    description: 'Display name, 8 to 40 characters (trimmed); cannot be cleared.',
  })
  // Absent leaves the name alone; null is refused (REQUIRED), as a name cannot be cleared.
  @ValidateIf((input: UpdateProfileInput) => input.name !== undefined)
  @NotBlank()
  @TrimmedMinLength(USER_LIMITS.name.min)
  @TrimmedMaxLength(USER_LIMITS.name.max)
  name?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Short biography, at most 200 characters (trimmed; empty clears it).',
  })
  @IsOptional()
  @IsString()
  @TrimmedMaxLength(USER_LIMITS.bio.max)
  bio?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Phone number, at most 20 characters (trimmed; empty clears it).',
  })
  @IsOptional()
  @IsString()
  @TrimmedMaxLength(USER_LIMITS.phone.max)
  phone?: string | null;

  @Field(() => GraphQLLocalDate, { nullable: true, description: 'Date of birth, YYYY-MM-DD.' })
  dob?: string | null;

  @Field(() => GraphQLUUID, { nullable: true, description: 'Id of the avatar photo (a UUID).' })
  avatarPhotoId?: string | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Whether others may see when you are busy (freeBusy, conflicts; default true).',
  })
  @IsOptional()
  shareAvailability?: boolean | null;

  @Field(() => String, {
    nullable: true,
    description: `Your IANA time zone, such as Europe/Berlin (unknown: INVALID_TIME_ZONE; null: ${DEFAULT_TIME_ZONE}).`,
  })
  @IsOptional()
  @IsTimeZone()
  timeZone?: string | null;

  @WorkingWeekField(
    `Your working week in your time zone, at most ${WORKING_HOURS_LIMITS.periods} periods, ` +
      'several a day allowed (no period on a day: not working then); null: the default, ' +
      'Monday to Friday 09:00 to 17:00.',
  )
  workingHours?: WorkingPeriodInput[] | null;

  @Field(() => MailPreferencesInput, {
    nullable: true,
    description: 'Kinds of mail to turn on or off (those left out stay as they are).',
  })
  @IsOptional()
  @ValidateNested()
  mailPreferences?: MailPreferencesInput | null;
}
