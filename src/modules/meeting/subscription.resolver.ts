import { Args, Authorized, Resolver, Root, Subscription } from 'type-graphql';
import type { Context } from '../index';
import { MeetingIdArgs } from './meeting.inputs';
import { Participant } from './participant.entity';
import type { ParticipantRecord } from './participant.store';
import { invitations, meetingEvents } from './subscription-streams';
import { MeetingEvent } from './meeting-event.type';

/** Live updates over WebSocket (graphql-transport-ws on /graphql). */
@Resolver()
export class SubscriptionResolver {
  @Authorized()
  @Subscription(() => Participant, {
    description: "The caller's new invitations as they arrive.",
    subscribe: ({ context }: { context: Context }) => invitations(context),
  })
  invitationReceived(@Root() participant: ParticipantRecord): ParticipantRecord {
    return participant;
  }

  @Authorized()
  @Subscription(() => MeetingEvent, {
    description: 'Changes to one meeting, for its owner, participants and admins.',
    // The UUID scalar has checked the argument (the variables too, before it runs).
    subscribe: ({ context, args }: { context: Context; args: MeetingIdArgs }) =>
      meetingEvents(context, args.meetingId),
  })
  meetingEvents(@Root() event: MeetingEvent, @Args() _args: MeetingIdArgs): MeetingEvent {
    return event;
  }
}
