import { MeetingEventKind } from '../meeting';

/**
 * The event types an endpoint may receive: a meeting's events as subscriptions name them
 * (`PARTICIPANT_ADDED` → `meeting.participant_added`), one type per kind of the change log.
 */
export const WEBHOOK_EVENT_TYPES: readonly string[] = Object.values(MeetingEventKind).map((kind) =>
  webhookEventType(kind),
);

/** The event type of a meeting event's kind. */
export function webhookEventType(kind: MeetingEventKind): string {
  return `meeting.${kind.toLowerCase()}`;
}

/** How docs/webhooks.md and the schema list them. */
export const EVENT_TYPES_TEXT = WEBHOOK_EVENT_TYPES.join(', ');
