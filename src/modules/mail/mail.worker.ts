import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { JobHandler } from '../../platform/jobs/job-queue';
import { startChangeLogWorker } from '../../platform/jobs/change-log-worker';
import type { EventHub } from '../../platform/live/event-hub';
import type { ChangeNotice } from '../meeting';
import { sendAttempt } from './mail.delivery';
import { type DispatchDeps, dispatchMail } from './mail.dispatch';
import { MAIL_DISPATCH_JOB, MAIL_TASKS } from './mail.jobs';
import { MailStore } from './mail.store';
import type { MailTransport } from './mail.transport';
import { REMINDER_TASKS } from './reminders/reminder.jobs';
import { ReminderStore } from './reminders/reminder.store';
import { reminderTasks } from './reminders/reminder.tasks';

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

/** How long sent and failed messages are kept. */
const KEEP_MS = 30 * 86_400_000;

/**
 * This instance's share of mail: dispatches (change log → messages, and meetings' reminders
 * scheduled), attempts, reminders as they come due, the hourly sweep of reminders and pruning,
 * run by a change-log dispatcher worker whichever instance queued them.
 */
export async function startMailWorker(
  options: MailWorkerOptions,
): Promise<{ close(): Promise<void> }> {
  const { orm, logger, transport } = options;
  const em = () => orm.em.fork();
  const dispatchDeps = { ...options.dispatch, em };
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
  const worker = await startChangeLogWorker({
    sessionUrl: options.sessionUrl,
    logger,
    component: 'mail',
    dispatchJob: MAIL_DISPATCH_JOB,
    dispatch: () => dispatchMail(dispatchDeps),
    tasks: () => ({ ...send, ...reminderTasks(em, logger) }),
    recurring: [{ task: REMINDER_TASKS.sweep, match: '11 * * * *' }],
    prune: {
      task: MAIL_TASKS.prune,
      match: '37 * * * *',
      run: async () => {
        const before = new Date(Date.now() - KEEP_MS);
        const pruned = await new MailStore(em()).prune(before);
        const reminders = await new ReminderStore(em()).prune(before);
        if (pruned + reminders > 0) {
          logger.info({ component: 'mail', pruned, reminders }, 'mail messages pruned');
        }
      },
    },
    hear: (wake) => options.hub.on(options.topic, wake),
  });
  return {
    async close() {
      await worker.close();
      transport?.close();
    },
  };
}
