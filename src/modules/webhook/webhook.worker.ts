import type { MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { SecretBox } from '../../platform/auth/secret-box';
import { coalescedWake } from '../../platform/jobs/coalesced-wake';
import { type JobQueue, startJobQueue } from '../../platform/jobs/job-queue';
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
  logger: Logger;
}

/** Attempts one instance makes at once (to different endpoints: an endpoint's run in turn). */
const CONCURRENCY = 4;
/** How often retries that came due are looked for (new jobs are announced at once). */
const POLL_MS = 1_000;
/** On shutdown, how long an attempt under way may go on before it is abandoned (and runs again). */
const SHUTDOWN_ABORT_MS = 2_000;

/**
 * This instance's share of webhook delivery: a graphile-worker pool that runs dispatches (change
 * log → deliveries), attempts and pruning, whichever instance queued them. Every change this
 * instance hears asks for a dispatch (one waits at most, whoever asks); so does every minute (a
 * change heard while the queue was unreachable) and the start (changes made while every
 * instance was down).
 */
export async function startWebhookWorker<C extends Context>(
  options: WebhookWorkerOptions<C>,
): Promise<{ close(): Promise<void> }> {
  const { orm, logger } = options;
  const em = () => orm.em.fork();
  const readMeeting = meetingReader(options.schema);
  const dispatchDeps = { em, contextOf: options.contextOf, readMeeting };
  const deliveryDeps = { em, secrets: options.secrets, policy: options.policy, logger };
  // A job may start before startJobQueue answers (one queued before this instance started).
  let started: (queue: JobQueue) => void = () => undefined;
  const ready = new Promise<JobQueue>((resolve) => (started = resolve));
  const queue = await startJobQueue({
    url: options.sessionUrl,
    logger,
    concurrency: CONCURRENCY,
    pollIntervalMs: POLL_MS,
    shutdownAbortMs: SHUTDOWN_ABORT_MS,
    tasks: {
      [WEBHOOK_TASKS.dispatch]: async () => {
        if (await dispatchChanges(dispatchDeps)) {
          await (await ready).add(DISPATCH_JOB);
        }
      },
      [WEBHOOK_TASKS.deliver]: (payload, run) => deliverAttempt(payload, run, deliveryDeps),
      [WEBHOOK_TASKS.prune]: async () => {
        const before = new Date(Date.now() - WEBHOOK_LIMITS.keepDeliveriesMs);
        const pruned = await new WebhookDeliveryStore(em()).prune(before);
        if (pruned > 0) {
          logger.info({ component: 'webhooks', pruned }, 'webhook deliveries pruned');
        }
        // Each endpoint has a queue of its own: those of deleted endpoints go.
        await (await ready).dropIdleQueues();
      },
    },
    recurring: [
      {
        task: DISPATCH_JOB.task,
        match: '* * * * *',
        queue: DISPATCH_JOB.queue,
        key: DISPATCH_JOB.key,
      },
      { task: WEBHOOK_TASKS.prune, match: '23 * * * *' },
    ],
  });
  started(queue);
  const dispatcher = coalescedWake(queue, DISPATCH_JOB, { logger, component: 'webhooks' });
  const stopHearing = options.hub.on(ALL_CHANGES_TOPIC, (notice) => {
    if (isMeetingEvent(notice)) {
      dispatcher.wake();
    }
  });
  dispatcher.wake();
  return {
    async close() {
      stopHearing();
      dispatcher.stop();
      await queue.close();
    },
  };
}
