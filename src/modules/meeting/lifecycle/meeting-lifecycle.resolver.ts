import { Args, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../meeting.context';
import { Viewer } from '../../../platform/auth/tokens';
import type { UserRecord } from '../../user';
import {
  CancelMeetingArgs,
  CompleteMeetingArgs,
  LeaveMeetingArgs,
  RemoveParticipantArgs,
  RescheduleMeetingArgs,
  UpdateMeetingArgs,
} from './meeting-lifecycle.inputs';
import {
  CancelMeetingPayload,
  CompleteMeetingPayload,
  LeaveMeetingPayload,
  RemoveParticipantPayload,
  RescheduleMeetingPayload,
  UpdateMeetingPayload,
} from './meeting-lifecycle.types';

/*
 * The meeting lifecycle after creation (docs/rest-contract.md §7). For every mutation: a meeting
 * the caller cannot see is NOT_FOUND/MEETING_NOT_FOUND; a cancelled or completed one is
 * CONFLICT/MEETING_CLOSED unless said otherwise.
 */
@Resolver()
export class MeetingLifecycleResolver {
  @Authorized()
  @Mutation(() => UpdateMeetingPayload, {
    description:
      'Edits title, type, location, locationUrl, appointedBy and assignedTo: only the fields ' +
      'given change, answers and status stay. Owner or admin (else ONLY_MEETING_OWNER_CAN_EDIT); ' +
      'pending or confirmed meetings; appointedBy and assignedTo name active users ' +
      '(else USER_NOT_FOUND).',
  })
  async updateMeeting(
    @Args() { input }: UpdateMeetingArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<UpdateMeetingPayload> {
    return { meeting: await ctx.services.meetingLifecycle.update(viewer, input) };
  }

  @Authorized()
  @Mutation(() => RescheduleMeetingPayload, {
    description:
      'Moves the start to a future time (else BAD_USER_INPUT, MUST_BE_FUTURE): every guest ' +
      'answer goes back to new and the meeting back to pending; the owner stays accepted. The ' +
      'same start again changes nothing. Owner or admin (else ONLY_MEETING_OWNER_CAN_RESCHEDULE); ' +
      'pending or confirmed meetings.',
  })
  async rescheduleMeeting(
    @Args() { input }: RescheduleMeetingArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<RescheduleMeetingPayload> {
    return { meeting: await ctx.services.meetingLifecycle.reschedule(viewer, input) };
  }

  @Authorized()
  @Mutation(() => CancelMeetingPayload, {
    description:
      'Cancels a pending or confirmed meeting; cancelling again changes nothing; a completed ' +
      'meeting is MEETING_CLOSED. Owner or admin (else ONLY_MEETING_OWNER_CAN_CANCEL).',
  })
  async cancelMeeting(
    @Args() { input }: CancelMeetingArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<CancelMeetingPayload> {
    return { meeting: await ctx.services.meetingLifecycle.cancel(viewer, input) };
  }

  @Authorized()
  @Mutation(() => CompleteMeetingPayload, {
    description:
      'Marks a meeting as held: it must be confirmed (else CONFLICT/MEETING_NOT_CONFIRMED) and ' +
      'started (else CONFLICT/MEETING_NOT_STARTED); completing again changes nothing; a ' +
      'cancelled meeting is MEETING_CLOSED. Owner or admin (else ONLY_MEETING_OWNER_CAN_COMPLETE).',
  })
  async completeMeeting(
    @Args() { input }: CompleteMeetingArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<CompleteMeetingPayload> {
    return { meeting: await ctx.services.meetingLifecycle.complete(viewer, input) };
  }

  @Authorized()
  @Mutation(() => RemoveParticipantPayload, {
    description:
      'Takes a participant out of a pending or confirmed meeting; when every remaining guest has ' +
      'accepted, a pending meeting becomes confirmed. Owner or admin (else ' +
      'ONLY_MEETING_OWNER_CAN_REMOVE_PARTICIPANTS); never the owner (FORBIDDEN/CANNOT_REMOVE_OWNER); ' +
      'a user who is not a participant is NOT_FOUND/PARTICIPANT_NOT_FOUND.',
  })
  async removeParticipant(
    @Args() { input }: RemoveParticipantArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<RemoveParticipantPayload> {
    return { meeting: await ctx.services.meetingLifecycle.removeParticipant(viewer, input) };
  }

  @Authorized()
  @Mutation(() => LeaveMeetingPayload, {
    description:
      'The caller, a guest, leaves a pending or confirmed meeting; when every remaining guest has ' +
      'accepted, a pending meeting becomes confirmed. Participants only (else ' +
      'FORBIDDEN/NOT_A_PARTICIPANT); the owner cannot leave (FORBIDDEN/OWNER_CANNOT_LEAVE).',
  })
  leaveMeeting(
    @Args() { input }: LeaveMeetingArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<LeaveMeetingPayload> {
    return ctx.services.meetingLifecycle.leave(viewer, input);
  }
}
