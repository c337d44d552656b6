import {
  ArrayMaxSize,
  ArrayMinSize,
  IsISO8601,
  IsOptional,
  IsUUID,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ArgsType, Field, InputType } from 'type-graphql';
import { PageArgs } from '../../shared/pagination';
import { IsFuture, NotBlank, TrimmedMaxLength, TrimmedMinLength } from '../../shared/validation';
import { ParticipantStatus } from '../participant/participant.entity';
import { MEETING_LIMITS, MeetingType } from './meeting.entity';

export const MAX_PARTICIPANTS_PER_CREATE = 500;

@InputType({ description: 'The meeting to create.' })
export class MeetingInput {
  @Field({ description: 'Title, 6 to 40 characters.' })
  @NotBlank()
  @TrimmedMinLength(MEETING_LIMITS.title.min)
  @TrimmedMaxLength(MEETING_LIMITS.title.max)
  title!: string;

  @Field(() => MeetingType, { nullable: true, description: 'Kind of meeting (default all-hands).' })
  type?: MeetingType | null;

  @Field({ description: 'Start, an ISO 8601 date-time in the future.' })
  @NotBlank()
  @IsISO8601({ strict: true })
  @IsFuture()
  startTime!: string;

  @Field({ description: 'Place, 6 to 40 characters.' })
  @NotBlank()
  @TrimmedMinLength(MEETING_LIMITS.location.min)
  @TrimmedMaxLength(MEETING_LIMITS.location.max)
  location!: string;

  @Field(() => String, { nullable: true, description: 'Link to join, at most 100 characters.' })
  @IsOptional()
  @MaxLength(MEETING_LIMITS.locationUrl.max)
  locationUrl?: string | null;

  @Field(() => String, { nullable: true, description: 'Id of the user who appointed the meeting.' })
  @IsOptional()
  @IsUUID()
  appointedBy?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Id of the user the meeting is assigned to.',
  })
  @IsOptional()
  @IsUUID()
  assignedTo?: string | null;
}

@InputType({ description: 'A user to invite, with an optional initial answer.' })
export class ParticipantInput {
  @Field({ description: 'Id of the user to invite.' })
  @NotBlank()
  @IsUUID()
  userId!: string;

  @Field(() => ParticipantStatus, { nullable: true, description: 'Initial answer (default new).' })
  status?: ParticipantStatus | null;
}

@ArgsType()
export class CreateMeetingArgs {
  @Field(() => MeetingInput)
  @ValidateNested()
  meeting!: MeetingInput;

  @Field(() => [ParticipantInput], { description: 'The users to invite (at least one).' })
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_PARTICIPANTS_PER_CREATE)
  @ValidateNested({ each: true })
  participants!: ParticipantInput[];
}

@ArgsType()
export class MeetingIdArgs {
  @Field({ description: 'Id of the meeting (UUID).' })
  @NotBlank()
  @IsUUID()
  meetingId!: string;
}

@ArgsType()
export class AddParticipantArgs extends MeetingIdArgs {
  @Field({ description: 'Id of the user to add (UUID).' })
  @NotBlank()
  @IsUUID()
  userId!: string;

  @Field(() => ParticipantStatus, {
    defaultValue: ParticipantStatus.NEW,
    description: 'Initial answer (default new).',
  })
  status: ParticipantStatus = ParticipantStatus.NEW;
}

@ArgsType()
export class MeetingListArgs extends PageArgs(100) {}
