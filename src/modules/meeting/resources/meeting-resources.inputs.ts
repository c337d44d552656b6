import { Field, InputType } from 'type-graphql';
import { GraphQLUUID } from '../../../platform/shared/scalars';
import { MeetingRef } from '../meeting.inputs';

@InputType({ description: 'A room or other resource to book for a meeting.' })
export class AddResourceInput extends MeetingRef {
  @Field(() => GraphQLUUID, { description: 'Id of the resource.' })
  resourceId!: string;
}

@InputType({ description: 'A resource a meeting no longer books.' })
export class RemoveResourceInput extends MeetingRef {
  @Field(() => GraphQLUUID, { description: 'Id of the resource.' })
  resourceId!: string;
}
