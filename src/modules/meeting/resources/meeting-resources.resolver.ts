import {
  Arg,
  Authorized,
  Ctx,
  FieldResolver,
  Mutation,
  ObjectType,
  Resolver,
  Root,
} from 'type-graphql';
import { Viewer } from '../../../platform/auth/tokens';
import { MaxItems } from '../../../platform/graphql/list-size';
import {
  Resource,
  RESOURCE_LIMITS,
  type ResourceLoaders,
  type ResourceRecord,
} from '../../resource';
import type { UserRecord } from '../../user';
import type { Context as MeetingContext } from '../meeting.context';
import { Meeting } from '../meeting.entity';
import type { MeetingRecord } from '../meeting.store';
import { MeetingPayload } from '../meeting.types';
import { AddResourceInput, RemoveResourceInput } from './meeting-resources.inputs';

type Context = MeetingContext & { loaders: Pick<ResourceLoaders, 'resourcesByMeeting'> };

@ObjectType({ simpleResolvers: true, description: 'The result of addResource.' })
export class AddResourcePayload extends MeetingPayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of removeResource.' })
export class RemoveResourcePayload extends MeetingPayload {}

const OWNER =
  'Owner or admin (else ONLY_MEETING_OWNER_CAN_BOOK); pending or confirmed meetings (else ' +
  'MEETING_CLOSED).';

@Resolver(() => Meeting)
export class MeetingResourcesResolver {
  @MaxItems(RESOURCE_LIMITS.perMeeting)
  @FieldResolver(() => [Resource], {
    description: `The rooms and other resources it books, in the order they were added (at most ${RESOURCE_LIMITS.perMeeting}).`,
  })
  resources(@Root() meeting: MeetingRecord, @Ctx() ctx: Context): Promise<ResourceRecord[]> {
    return ctx.loaders.resourcesByMeeting.load(meeting.id);
  }

  @Authorized()
  @Mutation(() => AddResourcePayload, {
    description:
      'Books a room or other resource for the meeting: its time, or for a series each ' +
      'occurrence that takes place (RESOURCE_BOOKING_HORIZON_DAYS ahead, later ones as time ' +
      'passes). One booked then by another meeting is CONFLICT, RESOURCE_BUSY (with resourceId ' +
      'and the first instant both want, at); an unknown one RESOURCE_NOT_FOUND; booking it again ' +
      `changes nothing. ${OWNER}`,
  })
  async addResource(
    @Arg('input', { description: 'The meeting and the resource.' }) input: AddResourceInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<AddResourcePayload> {
    return { meeting: await ctx.services.meetingResources.add(viewer, input) };
  }

  @Authorized()
  @Mutation(() => RemoveResourcePayload, {
    description: `Frees a resource the meeting books (else RESOURCE_NOT_BOOKED). ${OWNER}`,
  })
  async removeResource(
    @Arg('input', { description: 'The meeting and the resource.' }) input: RemoveResourceInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<RemoveResourcePayload> {
    return { meeting: await ctx.services.meetingResources.remove(viewer, input) };
  }
}
