import { Field, ObjectType } from 'type-graphql';
import { GraphQLDateTime } from '../../platform/shared/scalars';

/** A user's calendar feed, as GraphQL shows it (its secret is kept only as a hash). */
@ObjectType('CalendarFeed', {
  simpleResolvers: true,
  description:
    'A personal iCalendar feed: the meetings the caller owns or was invited to (any answer) ' +
    'that are not older than 90 days, at an address calendar apps subscribe to without a token.',
})
export class CalendarFeedView {
  @Field(() => String, {
    nullable: true,
    description:
      'The address to subscribe to (<PUBLIC_URL>/calendar/<secret>.ics), shown once, by ' +
      'createCalendarFeed: only a hash of its secret is kept, so calendarFeed shows null. ' +
      'Anyone who has it can read the feed: createCalendarFeed again replaces it.',
  })
  url!: string | null;

  @Field(() => GraphQLDateTime, { description: 'When this address was made.' })
  createdAt!: string;
}

@ObjectType({ simpleResolvers: true, description: 'The result of createCalendarFeed.' })
export class CreateCalendarFeedPayload {
  @Field(() => CalendarFeedView, { description: 'The new feed, with its address.' })
  feed!: CalendarFeedView;
}

@ObjectType({ simpleResolvers: true, description: 'The result of revokeCalendarFeed.' })
export class RevokeCalendarFeedPayload {
  @Field({ description: 'Whether a feed was ended (false when the caller had none).' })
  revoked!: boolean;
}
