import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Context } from './webhook.context';
import { inSqlTransaction } from '../../platform/sql/sql-transaction';
import { isMeetingEvent, type MeetingNotice, seenBy } from '../meeting';
import { eventOf } from '../meeting-events';
import { isAdmin, isVisibleUser, type UserRecord, UserStore } from '../user';
import { type MeetingReader, webhookBody } from './webhook-body';
import { WebhookBacklogStore } from './webhook-backlog.store';
import { type NewDelivery, WebhookDeliveryStore } from './webhook-delivery.store';
import { webhookEventType } from './webhook.events';
import { attemptJob } from './webhook.jobs';
import { type WebhookEndpointRecord, WebhookEndpointStore } from './webhook.store';

/** A context acting as `user` outside any request, over an entity manager or another context. */
export type ContextOf<C extends Context = Context> = (
  user: UserRecord,
  over: EntityManager | C,
) => C;

export interface DispatchDeps<C extends Context = Context> {
  /** A fresh entity manager (one per batch). */
  em: () => EntityManager;
  contextOf: ContextOf<C>;
  readMeeting: MeetingReader;
  /** An endpoint's lanes (WEBHOOK_CONCURRENCY_PER_ENDPOINT). */
  concurrencyPerEndpoint: number;
  /** Undelivered deliveries past which an endpoint is disabled (WEBHOOK_MAX_BACKLOG). */
  maxBacklog: number;
  logger: Logger;
}

/** Changes read at a time, and batches one run makes before it hands over to a new one. */
const BATCH = 200;
const BATCHES_PER_RUN = 10;

/**
 * The bodies of the changes each endpoint receives: for every change, every enabled endpoint
 * subscribed to its type, made before it, whose owner may see the meeting, decided as their
 * subscription would decide it (`eventOf`, as its owner), the meeting read as its owner reads it.
 * All owners' reads of one batch share their loaders: each meeting is read once, and only the
 * endpoints of those who may see it are judged.
 */
async function deliveriesOf<C extends Context>(
  em: EntityManager,
  changes: readonly MeetingNotice[],
  deps: DispatchDeps<C>,
): Promise<NewDelivery[]> {
  const types = [...new Set(changes.map((change) => webhookEventType(change.kind)))];
  const endpoints = await new WebhookEndpointStore(em).subscribedTo(types);
  if (endpoints.length === 0) {
    return [];
  }
  const userIds = [...new Set(endpoints.map((endpoint) => endpoint.userId))];
  const owners = new Map(
    (await new UserStore(em).byIds(userIds))
      .filter((user) => isVisibleUser(user))
      .map((user) => [user.id, user]),
  );
  let shared: C | undefined;
  const contextAs = (owner: UserRecord): C => {
    const context = deps.contextOf(owner, shared ?? em);
    shared ??= context;
    return context;
  };
  // Who may see each meeting (its owner, participants; admins aside), on the loaders all owners
  // share: only their endpoints are judged further, not every endpoint for every change.
  const audiences = new Map<string, Promise<ReadonlySet<string>>>();
  const audienceOf = (meetingId: string, reader: UserRecord): Promise<ReadonlySet<string>> => {
    let audience = audiences.get(meetingId);
    if (!audience) {
      const { loaders } = contextAs(reader);
      audience = (async () => {
        const meeting = await loaders.meetings.load(meetingId);
        return meeting
          ? new Set(seenBy(meeting, await loaders.participantsByMeeting.load(meetingId)))
          : new Set<string>();
      })();
      audiences.set(meetingId, audience);
    }
    return audience;
  };
  const bodies = new Map<string, Promise<string | null>>();
  const bodyFor = (owner: UserRecord, change: MeetingNotice): Promise<string | null> => {
    const key = `${owner.id} ${change.cursor}`;
    let body = bodies.get(key);
    if (!body) {
      const context = contextAs(owner);
      body = (async () => {
        if (!(await eventOf(context, change))) {
          return null;
        }
        const meeting = await deps.readMeeting(context, change.meetingId);
        return meeting ? JSON.stringify(webhookBody(change, meeting)) : null;
      })();
      bodies.set(key, body);
    }
    return body;
  };
  const receives = (endpoint: WebhookEndpointRecord, change: MeetingNotice, type: string) =>
    endpoint.eventTypes.includes(type) &&
    endpoint.createdAt <= change.occurredAt &&
    owners.has(endpoint.userId);
  const made: NewDelivery[] = [];
  for (const change of changes) {
    const eventType = webhookEventType(change.kind);
    const subscribed = endpoints.filter((endpoint) => receives(endpoint, change, eventType));
    const [first] = subscribed;
    if (!first) {
      continue;
    }
    const audience = await audienceOf(change.meetingId, owners.get(first.userId) as UserRecord);
    const receiving = subscribed.filter((endpoint) => {
      const owner = owners.get(endpoint.userId) as UserRecord;
      return isAdmin(owner) || audience.has(owner.id);
    });
    const payloads = await Promise.all(
      receiving.map((endpoint) => bodyFor(owners.get(endpoint.userId) as UserRecord, change)),
    );
    receiving.forEach((endpoint, index) => {
      const payload = payloads[index];
      if (payload) {
        const { cursor, meetingId } = change;
        made.push({ endpointId: endpoint.id, eventType, cursor, meetingId, payload });
      }
    });
  }
  return made;
}

/** Why an endpoint whose backlog passed `max` was disabled. */
export const backlogReason = (max: number): string =>
  `more than ${max} deliveries undelivered (WEBHOOK_MAX_BACKLOG)`;

/**
 * Makes the deliveries of the meetings' changes past the dispatcher's cursor, a batch at a time.
 * Each batch's deliveries, their first attempts' jobs and the cursor's move are one transaction
 * (the cursor moves only from where the batch was read: a dispatcher that lost the race writes
 * nothing), so each change makes its deliveries once, whichever instance runs it, and none is
 * lost to a crash. An endpoint whose backlog the batch takes past WEBHOOK_MAX_BACKLOG is disabled
 * in it, its deliveries kept without jobs (enabling it queues them). Answers whether changes
 * remain (the caller queues another run).
 */
export async function dispatchChanges<C extends Context>(deps: DispatchDeps<C>): Promise<boolean> {
  for (let batch = 0; batch < BATCHES_PER_RUN; batch += 1) {
    const em = deps.em();
    const store = new WebhookDeliveryStore(em);
    const from = await store.dispatchedUpTo();
    const read = await store.meetingChangesAfter(from, BATCH);
    const last = read.at(-1);
    if (!last) {
      return false;
    }
    const made = await deliveriesOf(em, read.filter(isMeetingEvent), deps);
    const moved = await inSqlTransaction(em, async (tx) => {
      const deliveries = new WebhookDeliveryStore(tx);
      const runFrom = await deliveries.moveDispatch(from, last.cursor, made.length);
      if (runFrom === null) {
        return null;
      }
      const inserted = new Map(
        (await deliveries.insert(made)).map((d) => [`${d.endpointId} ${d.cursor}`, d]),
      );
      const over = await new WebhookBacklogStore(tx).disableOver(
        [...new Set([...inserted.values()].map((delivery) => delivery.endpointId))],
        deps.maxBacklog,
        backlogReason(deps.maxBacklog),
      );
      const disabled = new Set(over.map((endpoint) => endpoint.endpointId));
      const jobs = made.flatMap((delivery) => {
        const written = inserted.get(`${delivery.endpointId} ${delivery.cursor}`);
        return written && !disabled.has(written.endpointId)
          ? [
              attemptJob(
                { deliveryId: written.id, attempt: 1, manual: false },
                written,
                deps.concurrencyPerEndpoint,
              ),
            ]
          : [];
      });
      // In the log's order, each after the one before and after the last batch's: each lane of
      // an endpoint runs its first attempts in commit order.
      await deliveries.queue(jobs, runFrom);
      return over;
    });
    for (const { endpointId, backlog } of moved ?? []) {
      deps.logger.warn(
        { component: 'webhooks', endpointId, backlog },
        'webhook endpoint disabled: backlog past WEBHOOK_MAX_BACKLOG',
      );
    }
    if (moved && read.length < BATCH) {
      return false;
    }
  }
  return true;
}
