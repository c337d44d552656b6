import type { MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { SecretBox } from '../../platform/auth/secret-box';
import { startChangeLogWorker } from '../../platform/jobs/change-log-worker';
import type { EventHub } from '../../platform/live/event-hub';
import { ALL_CHANGES_TOPIC, type ChangeNotice, isMeetingEvent } from '../meeting';
import { meetingReader } from './webhook-body';
import { WebhookDeliveryStore } from './webhook-delivery.store';
import { type DeliveryPolicy, deliverAttempt } from './webhook.delivery';
import { type ContextOf, dispatchChanges } from './webhook.dispatch';
import { DISPATCH_JOB, WEBHOOK_TASKS } from './webhook.jobs';
import { WEBHOOK_LIMITS } from './webhook.limits';
import type { Context } from './webhook.context';

export interface WebhookWorkerOptions<C extends Context = Context> {
  /** An ORM of the worker's own (its own small pool): see openBackgroundOrm. */
  orm: MikroORM;
  /** A URL with sessions of their own, for the job queue's LISTEN. */
  sessionUrl: string;
  schema: GraphQLSchema;
  contextOf: ContextOf<C>;
  /** This instance's committed changes, as its subscribers hear them: each wakes the dispatcher. */
  hub: EventHub<ChangeNotice>;
  secrets: SecretBox;
  policy: DeliveryPolicy;
  /** Undelivered deliveries past which an endpoint is disabled (WEBHOOK_MAX_BACKLOG). */
  maxBacklog: number;
  logger: Logger;
}

/** Dispatches (one at a time in the whole deployment) and the hourly prune. */
const DISPATCH_WORKERS = 2;

/**
 * Attempts this instance runs at once, in a pool of their own so that dispatches never wait
 * behind them: every lane of one endpoint, which a receiver that hangs holds (each attempt for up
 * to WEBHOOK_LIMITS.timeoutMs), and 4 more, as many as an instance ran in all before lanes, so
 * that the other endpoints' attempts go on beside it. An endpoint's lanes are queues of the whole
 * deployment: it holds that many workers at most, whichever instances take them. The job queue
 * gives each worker a connection at most (job-queue.ts): 8 with the default lanes, and 2 for
 * dispatches, where one pool of 4 ran everything (docs/operations.md counts them).
 */
const attemptWorkers = (lanes: number): number => lanes + 4;

/**
 * This instance's share of webhook delivery: dispatches (change log → deliveries), attempts
 * (an endpoint's in its lanes, each a queue of its own) and pruning, run by a change-log
 * dispatcher worker whichever instance queued them. Only meetings' events wake the dispatcher.
 */
export async function startWebhookWorker<C extends Context>(
  options: WebhookWorkerOptions<C>,
): Promise<{ close(): Promise<void> }> {
  const { orm, logger } = options;
  const em = () => orm.em.fork();
  const readMeeting = meetingReader(options.schema);
  const dispatchDeps = {
    em,
    contextOf: options.contextOf,
    readMeeting,
    concurrencyPerEndpoint: options.policy.concurrencyPerEndpoint,
    maxBacklog: options.maxBacklog,
    logger,
  };
  const deliveryDeps = { em, secrets: options.secrets, policy: options.policy, logger };
  return startChangeLogWorker({
    sessionUrl: options.sessionUrl,
    logger,
    component: 'webhooks',
    dispatchJob: DISPATCH_JOB,
    dispatch: () => dispatchChanges(dispatchDeps),
    concurrency: DISPATCH_WORKERS,
    ownPool: {
      tasks: {
        [WEBHOOK_TASKS.deliver]: (payload, run) => deliverAttempt(payload, run, deliveryDeps),
      },
      concurrency: attemptWorkers(options.policy.concurrencyPerEndpoint),
    },
    prune: {
      task: WEBHOOK_TASKS.prune,
      match: '23 * * * *',
      run: async (queue) => {
        const before = new Date(Date.now() - WEBHOOK_LIMITS.keepDeliveriesMs);
        const pruned = await new WebhookDeliveryStore(em()).prune(before);
        if (pruned > 0) {
          logger.info({ component: 'webhooks', pruned }, 'webhook deliveries pruned');
        }
        // Each endpoint's lane is a queue of its own: those of deleted endpoints go.
        await (await queue()).dropIdleQueues();
      },
    },
    hear: (wake) =>
      options.hub.on(ALL_CHANGES_TOPIC, (notice) => {
        if (isMeetingEvent(notice)) {
          wake();
        }
      }),
  });
}
