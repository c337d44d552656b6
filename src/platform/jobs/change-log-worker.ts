import type { Logger } from 'pino';
import { coalescedWake } from './coalesced-wake';
import {
  type JobHandler,
  type JobQueue,
  type JobSpec,
  type RecurringJob,
  startJobQueue,
} from './job-queue';

/** Jobs one instance runs at once, unless the worker says otherwise. */
const CONCURRENCY = 4;
/** How often jobs that came due (retries, scheduled runs) are looked for; new ones are announced. */
const POLL_MS = 1_000;
/** On shutdown, how long a job under way may go on before it is abandoned (and runs again). */
const SHUTDOWN_ABORT_MS = 2_000;
/** Every minute, a dispatch runs whoever asked (a change heard while the queue was away). */
const DISPATCH_EVERY = '* * * * *';

/** The queue, once it runs: a job may start before startJobQueue answers (one queued earlier). */
export type ReadyQueue = () => Promise<JobQueue>;

/** What one change-log dispatcher worker does: its task bodies and settings, nothing else. */
export interface ChangeLogWorkerOptions {
  /** A URL with sessions of their own, for the job queue's LISTEN. */
  sessionUrl: string;
  logger: Logger;
  /** How its log lines name it (`mail`, `webhooks`). */
  component: string;
  /** The dispatch's job: its own queue (one runs at a time) and key (one waits at most). */
  dispatchJob: JobSpec;
  /** One dispatch run (change log → work); answers whether changes remain to dispatch. */
  dispatch(): Promise<boolean>;
  /** The prune task: its name, its cron pattern, its body. */
  prune: { task: string; match: string; run(queue: ReadyQueue): Promise<void> };
  /** The tasks the dispatch queues (attempts), by name. */
  tasks?: (queue: ReadyQueue) => Readonly<Record<string, JobHandler>>;
  /** Jobs of the dispatch, the prune and `tasks` this instance runs at once (default 4). */
  concurrency?: number;
  /**
   * Tasks run by a worker pool of their own, `concurrency` of their jobs at once on this
   * instance: work that may wait long on others (an attempt waiting for a slow receiver) then
   * never holds the workers the dispatch and the prune need.
   */
  ownPool?: { tasks: Readonly<Record<string, JobHandler>>; concurrency: number };
  /** More recurring jobs than the dispatch and the prune. */
  recurring?: readonly RecurringJob[];
  /** Calls `wake` on each change this instance hears of that may need a dispatch; answers a stop. */
  hear(wake: () => void): () => void;
}

/** A running change-log dispatcher worker. */
export interface ChangeLogWorker {
  queue: JobQueue;
  close(): Promise<void>;
}

/**
 * This instance's share of a change-log dispatcher: a graphile-worker pool that runs dispatches
 * (change log → work), the work's tasks and pruning (`ownPool`'s tasks in a pool of their own),
 * whichever instance queued them. A dispatch that leaves changes behind queues the next one;
 * every change this instance hears of asks for a dispatch (one waits at most, whoever asks), as
 * do every minute and the start (changes made while every instance was down).
 */
export async function startChangeLogWorker(
  options: ChangeLogWorkerOptions,
): Promise<ChangeLogWorker> {
  const { logger, dispatchJob } = options;
  let started: (queue: JobQueue) => void = () => undefined;
  const running = new Promise<JobQueue>((resolve) => (started = resolve));
  const ready: ReadyQueue = () => running;
  const settings = {
    url: options.sessionUrl,
    logger,
    pollIntervalMs: POLL_MS,
    shutdownAbortMs: SHUTDOWN_ABORT_MS,
  };
  const queue = await startJobQueue({
    ...settings,
    concurrency: options.concurrency ?? CONCURRENCY,
    tasks: {
      [dispatchJob.task]: async () => {
        if (await options.dispatch()) {
          await (await ready()).add(dispatchJob);
        }
      },
      ...options.tasks?.(ready),
      [options.prune.task]: () => options.prune.run(ready),
    },
    recurring: [
      {
        task: dispatchJob.task,
        match: DISPATCH_EVERY,
        ...(dispatchJob.queue && { queue: dispatchJob.queue }),
        ...(dispatchJob.key && { key: dispatchJob.key }),
      },
      { task: options.prune.task, match: options.prune.match },
      ...(options.recurring ?? []),
    ],
  });
  started(queue);
  let own: JobQueue | null = null;
  if (options.ownPool) {
    try {
      own = await startJobQueue({ ...settings, ...options.ownPool });
    } catch (error) {
      await queue.close();
      throw error;
    }
  }
  const dispatcher = coalescedWake(queue, dispatchJob, { logger, component: options.component });
  const stopHearing = options.hear(() => dispatcher.wake());
  dispatcher.wake();
  return {
    queue,
    async close() {
      stopHearing();
      dispatcher.stop();
      // At once: each lets the jobs under way finish, for SHUTDOWN_ABORT_MS at most.
      await Promise.all([queue.close(), own?.close()]);
    },
  };
}
