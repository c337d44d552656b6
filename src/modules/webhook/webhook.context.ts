import type { OperationContext } from '../../platform/composition/context';
import type { MeetingEventsContext } from '../meeting-events';
import type { UserRecord } from '../user';
import type { WebhookLoaders } from './webhook-backlog.store';
import type { WebhookService } from './webhook.service';

/**
 * An operation's context as the webhook module reads it: its resolvers', and its deliveries',
 * which read meetings as their endpoint's owner (the meeting events' context).
 */
export type Context = MeetingEventsContext &
  OperationContext<{ webhooks: WebhookService }, WebhookLoaders, UserRecord>;
