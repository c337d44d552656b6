import { ArgsType, InputType } from 'type-graphql';
import { PartialInput, PickInput } from '../../../platform/shared/derived-inputs';
import {
  AddParticipantInput,
  EDITABLE_FIELDS,
  MeetingInput,
  InputArgs,
  MeetingRef,
  TIMING_FIELDS,
} from '../meeting.inputs';

@InputType({
  description:
    'An edit of a meeting: only the fields given change; null clears locationUrl, appointedBy ' +
    'or assignedTo, and sets type back to all-hands. Same limits as createMeeting.',
})
export class UpdateMeetingInput extends PartialInput(MeetingInput, EDITABLE_FIELDS, {
  base: MeetingRef,
  descriptions: { type: 'Kind of meeting; null sets it back to all-hands.' },
}) {}

@InputType({
  description:
    'When a meeting happens: a new start, and optionally its duration, time zone and ' +
    'recurrence (left out: kept; null: the default, for recurrence none). Same limits as ' +
    'createMeeting.',
})
export class RescheduleMeetingInput extends PickInput(MeetingInput, TIMING_FIELDS, {
  base: MeetingRef,
}) {}

@InputType({ description: 'The meeting to cancel.' })
export class CancelMeetingInput extends MeetingRef {}

@InputType({ description: 'The meeting to mark as held.' })
export class CompleteMeetingInput extends MeetingRef {}

@InputType({ description: 'The meeting the caller leaves.' })
export class LeaveMeetingInput extends MeetingRef {}

@InputType({ description: 'A participant to take out of a meeting.' })
export class RemoveParticipantInput extends PickInput(
  AddParticipantInput,
  ['meetingId', 'userId'],
  {
    descriptions: { userId: 'Id of the participating user to remove (UUID).' },
  },
) {}

@ArgsType()
export class UpdateMeetingArgs extends InputArgs(UpdateMeetingInput) {}

@ArgsType()
export class RescheduleMeetingArgs extends InputArgs(RescheduleMeetingInput) {}

@ArgsType()
export class CancelMeetingArgs extends InputArgs(CancelMeetingInput) {}

@ArgsType()
export class CompleteMeetingArgs extends InputArgs(CompleteMeetingInput) {}

@ArgsType()
export class LeaveMeetingArgs extends InputArgs(LeaveMeetingInput) {}

@ArgsType()
export class RemoveParticipantArgs extends InputArgs(RemoveParticipantInput) {}
