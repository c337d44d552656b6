import type { JobSpec } from '../../platform/jobs/job-queue';
import { payloadOf } from '../../platform/jobs/job-payload';

/** The background jobs of mail (graphile-worker task identifiers). */
export const MAIL_TASKS = {
  /** Reads the change log past the mail dispatcher's cursor and makes the messages of it. */
  dispatch: 'mail_dispatch',
  /** Makes one attempt at sending one message. */
  send: 'mail_send',
  /** Deletes sent and failed messages past their keeping time. */
  prune: 'mail_prune',
} as const;

/**
 * One dispatch at a time across every instance (its own queue), and one waiting at most (its
 * key): however many instances ask for one while another runs, one more follows it.
 */
export const MAIL_DISPATCH_JOB: JobSpec = {
  task: MAIL_TASKS.dispatch,
  payload: {},
  queue: 'mail-dispatch',
  key: 'mail-dispatch',
  maxAttempts: 5,
};

/** The attempt a job makes: which message, and its number (1 for the first). */
export interface SendOrder {
  mailId: string;
  attempt: number;
}

/**
 * The job of an attempt: one job per message at a time (its key), run by whichever instance
 * takes it. A run that fails before recording its attempt (the database away, a shutdown) runs
 * again with graphile-worker's own backoff.
 */
export function sendJob(order: SendOrder, runAt?: Date): JobSpec {
  return {
    task: MAIL_TASKS.send,
    payload: order,
    key: `mail:${order.mailId}`,
    ...(runAt && { runAt }),
    maxAttempts: 25,
  };
}

/** A send job's payload, checked. */
export const sendOrderOf = (payload: unknown): SendOrder | null =>
  payloadOf(payload, { mailId: 'string', attempt: 'number' });
