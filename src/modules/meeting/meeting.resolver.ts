import {
  Arg,
  Args,
  Authorized,
  Ctx,
  FieldResolver,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import type { Context } from './meeting.context';
import { Viewer } from '../../platform/auth/tokens';
import { Participant, ParticipantStatus } from './participants/participant.entity';
import { User, type UserRecord } from '../user';
import { Meeting } from './meeting.entity';
import type { MeetingRecord } from './meeting.store';
import type { ParticipantRecord } from './participants/participant.store';
import { ConnectionArgs, type ConnectionResult } from '../../platform/graphql/connection';
import {
  AddParticipantPayload,
  ApproveMeetingPayload,
  CreateMeetingPayload,
  DeclineMeetingPayload,
  MeetingConnection,
  ParticipantConnection,
} from './meeting.types';
import {
  AddParticipantInput,
  ApproveMeetingInput,
  CreateMeetingInput,
  DeclineMeetingInput,
  InvitationFilterInput,
  MeetingFilterInput,
  MeetingIdArgs,
  MeetingListArgs,
} from './meeting.inputs';
import type { Known } from '../../platform/shared/known-loader';

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
    return ctx.services.meetings.get(viewer, args.meetingId);
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
  @Query(() => MeetingConnection.type, {
    description: "The caller's meetings, owned or invited to, by start time, a slice at a time.",
  })
  meetings(
    @Args() slice: ConnectionArgs,
    @Arg('filter', () => MeetingFilterInput, { nullable: true, description: 'Which meetings.' })
    filter: MeetingFilterInput | null,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<ConnectionResult<MeetingRecord>> {
    return ctx.services.meetings.slice(viewer, filter ?? {}, slice);
  }

  @Authorized()
  @Query(() => ParticipantConnection.type, {
    description: "The caller's invitations to others' meetings, newest first, a slice at a time.",
  })
  invitations(
    @Args() slice: ConnectionArgs,
    @Arg('filter', () => InvitationFilterInput, {
      nullable: true,
      description: 'Which invitations (default: unanswered, to open meetings).',
    })
    filter: InvitationFilterInput | null,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<ConnectionResult<ParticipantRecord>> {
    return ctx.services.meetings.invitations(viewer, filter ?? {}, slice);
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
  @Mutation(() => CreateMeetingPayload, {
    description: 'Creates a pending meeting and invites its participants.',
  })
  async createMeeting(
    @Arg('input', { description: 'The meeting and whom to invite.' }) input: CreateMeetingInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<CreateMeetingPayload> {
    return { meeting: await ctx.services.meetings.create(viewer, input) };
  }

  @Authorized()
  @Mutation(() => AddParticipantPayload, {
    description: 'Adds a user to a meeting (owner or admin only).',
  })
  async addParticipant(
    @Arg('input', { description: 'The meeting and the user.' }) input: AddParticipantInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<AddParticipantPayload> {
    return { participant: await ctx.services.meetings.addParticipant(viewer, input) };
  }

  @Authorized()
  @Mutation(() => ApproveMeetingPayload, {
    description: 'The caller accepts; all accepted confirms the meeting.',
  })
  async approveMeeting(
    @Arg('input', { description: 'The meeting.' }) input: ApproveMeetingInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<ApproveMeetingPayload> {
    return { meeting: await ctx.services.meetings.approve(viewer, input.meetingId) };
  }

  @Authorized()
  @Mutation(() => DeclineMeetingPayload, {
    description: 'The caller declines; all guests declined cancels it.',
  })
  async declineMeeting(
    @Arg('input', { description: 'The meeting.' }) input: DeclineMeetingInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<DeclineMeetingPayload> {
    return { meeting: await ctx.services.meetings.decline(viewer, input.meetingId) };
  }

  @FieldResolver(() => User, { description: 'The user who owns the meeting.' })
  owner(@Root() meeting: MeetingRecord, @Ctx() ctx: Context): Known<UserRecord | null> {
    return ctx.loaders.users.get(meeting.ownerId);
  }

  @FieldResolver(() => [Participant], {
    description: 'The participants, ordered by when they were added.',
  })
  participants(@Root() meeting: MeetingRecord, @Ctx() ctx: Context): Known<ParticipantRecord[]> {
    return ctx.loaders.participantsByMeeting.get(meeting.id);
  }

  @FieldResolver(() => ParticipantConnection.type, {
    description: 'The participants, in the order they were added, a slice at a time.',
  })
  participantsConnection(
    @Root() meeting: MeetingRecord,
    @Args() slice: ConnectionArgs,
    @Arg('answers', () => [ParticipantStatus], {
      nullable: true,
      description: 'Only participants with one of these answers (default: all).',
    })
    answers: ParticipantStatus[] | null,
    @Ctx() ctx: Context,
  ): Promise<ConnectionResult<ParticipantRecord>> {
    return ctx.services.meetings.participants(meeting.id, answers, slice);
  }
}

@Resolver(() => Participant)
export class ParticipantResolver {
  @FieldResolver(() => User, { description: 'The participating user.' })
  user(@Root() participant: ParticipantRecord, @Ctx() ctx: Context): Known<UserRecord | null> {
    return ctx.loaders.users.get(participant.userId);
  }

  @FieldResolver(() => Meeting, { description: 'The meeting.' })
  meeting(
    @Root() participant: ParticipantRecord,
    @Ctx() ctx: Context,
  ): Known<MeetingRecord | null> {
    return ctx.loaders.meetings.get(participant.meetingId);
  }
}
