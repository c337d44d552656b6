import {
  Args,
  Authorized,
  Ctx,
  FieldResolver,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import type { Context } from '../../context';
import { Viewer } from '../../shared/viewer.decorator';
import { Participant } from '../participant/participant.entity';
import { User } from '../user/user.entity';
import { Meeting } from './meeting.entity';
import type { MeetingRecord } from './meeting.store';
import type { ParticipantRecord } from '../participant/participant.store';
import type { UserRecord } from '../user/user.store';
import {
  AddParticipantArgs,
  CreateMeetingArgs,
  MeetingIdArgs,
  MeetingListArgs,
} from './meeting.inputs';

@Resolver(() => Meeting)
export class MeetingResolver {
  @Authorized()
  @Query(() => Meeting, {
    description: 'A meeting visible to the caller: its owner, a participant, or an admin.',
  })
  meeting(
    @Args() args: MeetingIdArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<MeetingRecord> {
    return ctx.services.meetings.get(viewer, args.meetingId.toLowerCase());
  }

  @Authorized()
  @Query(() => [Meeting], {
    description: 'Meetings the caller owns or has accepted, latest first.',
  })
  myMeetings(
    @Args() page: MeetingListArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<MeetingRecord[]> {
    return ctx.services.meetings.listMine(viewer, page);
  }

  @Authorized()
  @Query(() => [Participant], {
    description: "The caller's unanswered invitations to open meetings, newest first.",
  })
  meetingRequests(
    @Args() page: MeetingListArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<ParticipantRecord[]> {
    return ctx.services.meetings.requests(viewer, page);
  }

  @Authorized()
  @Mutation(() => Meeting, {
    description: 'Creates a pending meeting and invites its participants.',
  })
  createMeeting(
    @Args() args: CreateMeetingArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<MeetingRecord> {
    return ctx.services.meetings.create(viewer, args);
  }

  @Authorized()
  @Mutation(() => Participant, { description: 'Adds a user to a meeting (owner or admin only).' })
  addParticipant(
    @Args() args: AddParticipantArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<ParticipantRecord> {
    return ctx.services.meetings.addParticipant(viewer, args);
  }

  @Authorized()
  @Mutation(() => Meeting, {
    description: 'The caller accepts; all accepted confirms the meeting.',
  })
  approveMeeting(
    @Args() args: MeetingIdArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<MeetingRecord> {
    return ctx.services.meetings.approve(viewer, args.meetingId.toLowerCase());
  }

  @Authorized()
  @Mutation(() => Meeting, { description: 'The caller declines; all guests declined cancels it.' })
  declineMeeting(
    @Args() args: MeetingIdArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<MeetingRecord> {
    return ctx.services.meetings.decline(viewer, args.meetingId.toLowerCase());
  }

  @FieldResolver(() => User, { description: 'The user who owns the meeting.' })
  owner(@Root() meeting: MeetingRecord, @Ctx() ctx: Context): Promise<UserRecord | null> {
    return ctx.loaders.users.load(meeting.ownerId);
  }

  @FieldResolver(() => [Participant], {
    description: 'The participants, ordered by when they were added.',
  })
  participants(@Root() meeting: MeetingRecord, @Ctx() ctx: Context): Promise<ParticipantRecord[]> {
    return ctx.loaders.participantsByMeeting.load(meeting.id);
  }
}
