import { MeetingEventConnection, SubscriptionResolver } from './meeting-events.resolver';
import { defineModule } from '../../platform/composition/module';
import { noticeOf, topicsOf } from '../meeting';
import { startAudienceRelay } from './meeting-events.audience';

export type { Context as MeetingEventsContext } from './meeting-events.context';
export { eventOf } from './meeting-events.streams';

/**
 * What happens to meetings, as their subscribers hear it: the subscriptions (live, or resumed
 * from a cursor) and the change log read as a connection.
 */
export const meetingEventsModule = defineModule({
  name: 'meeting-events',
  resolvers: [SubscriptionResolver, MeetingEventConnection.resolver],
  noticeOf,
  topicsOf,
  worker: startAudienceRelay,
});
