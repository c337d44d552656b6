import type { JobSpec } from '../../platform/jobs/job-queue';
import { payloadOf } from '../../platform/jobs/job-payload';

/** The background jobs of webhooks (graphile-worker task identifiers). */
export const WEBHOOK_TASKS = {
  /** Reads the change log past the dispatcher's cursor and makes deliveries of it. */
  dispatch: 'webhook_dispatch',
  /** Makes one attempt at one delivery. */
  deliver: 'webhook_deliver',
  /** Deletes finished deliveries past their keeping time. */
  prune: 'webhook_prune',
} as const;

/**
 * One dispatch at a time across every instance (its own queue), and one waiting at most (its
 * key): however many instances ask for one while another runs, one more follows it.
 */
export const DISPATCH_JOB: JobSpec = {
  task: WEBHOOK_TASKS.dispatch,
  payload: {},
  queue: 'webhook-dispatch',
  key: 'webhook-dispatch',
  maxAttempts: 5,
};

/** The attempt a job makes: which delivery, its number, and whether its owner asked for it. */
export interface AttemptOrder {
  deliveryId: string;
  /** 1 for the first; an attempt already made is not made again. */
  attempt: number;
  /** Asked for by redeliverWebhook: no retries follow it. */
  manual: boolean;
}

/**
 * The job of an attempt. An endpoint's attempts run one at a time, in the order they were queued
 * (its own queue): in commit order while they succeed; a retry waits for its time without holding
 * the ones behind it. One job per delivery at a time (its key): a redelivery asked for while a
 * retry waits takes the retry's place.
 */
export function attemptJob(order: AttemptOrder, endpointId: string, runAt?: Date): JobSpec {
  return {
    task: WEBHOOK_TASKS.deliver,
    payload: order,
    queue: `webhook:${endpointId}`,
    key: `webhook-delivery:${order.deliveryId}`,
    ...(runAt && { runAt }),
    // A run that fails before recording its attempt (the database away, a shutdown) is run
    // again with graphile-worker's own backoff, 25 times at most (over days).
    maxAttempts: 25,
  };
}

/** An attempt job's payload, checked. */
export const attemptOrderOf = (payload: unknown): AttemptOrder | null =>
  payloadOf(payload, { deliveryId: 'string', attempt: 'number', manual: 'boolean' });
