import type { JobSpec } from '../../platform/jobs/job-queue';
import { payloadOf } from '../../platform/jobs/job-payload';
import { cursorPlace } from '../../platform/live/change-log';

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

/** What places an attempt's job: its delivery's endpoint and change. */
export interface AttemptTarget {
  endpointId: string;
  /** The change's place in the log (`tx.position`). */
  cursor: string;
}

/**
 * The lane of a delivery among its endpoint's `lanes`: its change's position in the log (one
 * counter for every change, so an endpoint's events take the lanes in turn) modulo their number.
 * The same on every attempt, so a delivery's retries stay in its lane.
 */
export function laneOf(cursor: string, lanes: number): number {
  const place = cursorPlace(cursor);
  return place ? Number(BigInt(place.position) % BigInt(lanes)) : 0;
}

/**
 * The job of an attempt. An endpoint's attempts run in `lanes` queues of its own
 * (WEBHOOK_CONCURRENCY_PER_ENDPOINT): one attempt at a time in each, in the order they were
 * queued (in commit order while they succeed), so at most `lanes` of the endpoint's at once,
 * whichever instances run them; a retry waits for its time without holding the ones behind it.
 * One job per delivery at a time (its key): a redelivery asked for while a retry waits takes the
 * retry's place.
 */
export function attemptJob(
  order: AttemptOrder,
  target: AttemptTarget,
  lanes: number,
  runAt?: Date,
): JobSpec {
  return {
    task: WEBHOOK_TASKS.deliver,
    payload: order,
    queue: `webhook:${target.endpointId}:${laneOf(target.cursor, lanes)}`,
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
