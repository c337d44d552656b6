import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { type JobHandler, type JobQueue, startJobQueue } from '../../platform/jobs/job-queue';
import { coalescedWake } from '../../platform/jobs/coalesced-wake';
import type { EventHub } from '../../platform/live/event-hub';
import type { ChangeNotice } from '../meeting';
import { sendAttempt } from './mail.delivery';
import { type DispatchDeps, dispatchMail } from './mail.dispatch';
import { MAIL_DISPATCH_JOB, MAIL_TASKS } from './mail.jobs';
import { MailStore } from './mail.store';
import type { MailTransport } from './mail.transport';

export interface MailWorkerOptions {
  /** An ORM of the worker's own (its own small pool). */
  orm: MikroORM;
  /** A URL with sessions of their own, for the job queue's LISTEN. */
  sessionUrl: string;
  /** This instance's committed changes: each wakes the dispatcher. */
  hub: EventHub<ChangeNotice>;
  /** Every change's topic on the hub. */
  topic: string;
  dispatch: Omit<DispatchDeps, 'em'>;
  /** SMTP, when messages are sent (null: kept for the development page). */
  transport: MailTransport | null;
  envelopeFrom: string;
  retrySchedule: readonly number[];
  logger: Logger;
}

/** Attempts one instance makes at once. */
const CONCURRENCY = 4;
/** How often retries that came due are looked for (new jobs are announced at once). */
const POLL_MS = 1_000;
/** On shutdown, how long an attempt under way may go on before it is abandoned (and runs again). */
const SHUTDOWN_ABORT_MS = 2_000;
/** How long sent and failed messages are kept. */
const KEEP_MS = 30 * 86_400_000;

/**
 * This instance's share of mail: a graphile-worker pool that runs dispatches (change log →
 * messages), attempts and pruning, whichever instance queued them. Every change this instance
 * hears asks for a dispatch; so does every minute and the start.
 */
export async function startMailWorker(
  options: MailWorkerOptions,
): Promise<{ close(): Promise<void> }> {
  const { orm, logger, transport } = options;
  const em = () => orm.em.fork();
  const dispatchDeps = { ...options.dispatch, em };
  let started: (queue: JobQueue) => void = () => undefined;
  const ready = new Promise<JobQueue>((resolve) => (started = resolve));
  const send: Record<string, JobHandler> = transport
    ? {
        [MAIL_TASKS.send]: (payload, run) =>
          sendAttempt(payload, run, {
            em,
            transport,
            envelopeFrom: options.envelopeFrom,
            retrySchedule: options.retrySchedule,
            logger,
            metrics: options.dispatch.metrics,
          }),
      }
    : {};
  const queue = await startJobQueue({
    url: options.sessionUrl,
    logger,
    concurrency: CONCURRENCY,
    pollIntervalMs: POLL_MS,
    shutdownAbortMs: SHUTDOWN_ABORT_MS,
    tasks: {
      [MAIL_TASKS.dispatch]: async () => {
        if (await dispatchMail(dispatchDeps)) {
          await (await ready).add(MAIL_DISPATCH_JOB);
        }
      },
      ...send,
      [MAIL_TASKS.prune]: async () => {
        const pruned = await new MailStore(em()).prune(new Date(Date.now() - KEEP_MS));
        if (pruned > 0) {
          logger.info({ component: 'mail', pruned }, 'mail messages pruned');
        }
      },
    },
    recurring: [
      {
        task: MAIL_DISPATCH_JOB.task,
        match: '* * * * *',
        queue: MAIL_DISPATCH_JOB.queue,
        key: MAIL_DISPATCH_JOB.key,
      },
      { task: MAIL_TASKS.prune, match: '37 * * * *' },
    ],
  });
  started(queue);
  const dispatcher = coalescedWake(queue, MAIL_DISPATCH_JOB, { logger, component: 'mail' });
  const stopHearing = options.hub.on(options.topic, () => dispatcher.wake());
  dispatcher.wake();
  return {
    async close() {
      stopHearing();
      dispatcher.stop();
      await queue.close();
      transport?.close();
    },
  };
}
