import { EventEmitter } from 'node:events';
import { Pool } from 'pg';
import type { Logger } from 'pino';
import type {
  CronItem,
  JobHelpers,
  LogFunctionFactory,
  Runner,
  TaskList,
  WorkerEvents,
  WorkerPool,
} from 'graphile-worker' with { 'resolution-mode': 'import' };
import { DependencyState } from '../observability/dependency-state';
import { scrub } from '../observability/log-safety';
import { watchDeadWorkers } from './dead-workers';
import { keptRunning } from './kept-running';
import { giveUpStuckPools } from './stuck-pools';

/**
 * Background jobs on the service's own PostgreSQL, by graphile-worker: every instance runs a
 * worker pool; a job runs on one of them, once at a time (named queues run their jobs one after
 * another, in order); a job's key keeps one pending job per key. The queue's tables live in the
 * `graphile_worker` schema, which graphile-worker installs and upgrades itself when it starts
 * (the service's migrations leave that schema alone).
 */

/** graphile-worker's schema (its default). */
export const JOBS_SCHEMA = 'graphile_worker';

/** What a job's handler is given besides its payload. */
export interface JobRun {
  /** Aborts when the instance shuts down and the job has not finished in time. */
  signal: AbortSignal;
  /** This run's number (1 on the first run) and the most runs the job gets. */
  attempt: number;
  maxAttempts: number;
}

/** Runs one job; a rejection fails this run (retried with graphile-worker's backoff). */
export type JobHandler = (payload: unknown, run: JobRun) => Promise<void>;

/** A job to add. */
export interface JobSpec {
  task: string;
  payload: unknown;
  /** Jobs of one queue run one at a time, in order (priority, run time, then when added). */
  queue?: string;
  /** At most one pending job per key: adding again replaces it (or follows it, if running). */
  key?: string;
  runAt?: Date;
  /** Runs a failing job gets (default 25). */
  maxAttempts?: number;
}

/** A recurring job: graphile-worker schedules each tick once, whichever instance sees it. */
export interface RecurringJob {
  task: string;
  /** A cron pattern, e.g. `0 * * * *`. */
  match: string;
  queue?: string;
  key?: string;
}

export interface JobQueueOptions {
  /** A URL with sessions of their own (graphile-worker LISTENs): DATABASE_DIRECT_URL if set. */
  url: string;
  logger: Logger;
  tasks: Readonly<Record<string, JobHandler>>;
  recurring?: readonly RecurringJob[];
  /** Jobs run at once on this instance. */
  concurrency: number;
  /** How often to look for jobs due (retries scheduled for later) when no notice comes. */
  pollIntervalMs: number;
  /** On shutdown, how long running jobs may go on before their signal aborts. */
  shutdownAbortMs: number;
}

/** This instance's worker pool. */
export interface JobQueue {
  add(spec: JobSpec): Promise<void>;
  /** Deletes the named queues no job refers to any more (graphile-worker keeps them). */
  dropIdleQueues(): Promise<void>;
  /** Stops taking jobs, lets running ones finish (aborting them after a while), then closes. */
  close(): Promise<void>;
}

/**
 * One statement that adds jobs inside the caller's transaction: they exist if and only if what
 * it writes with them commits. graphile-worker takes a queue's jobs by priority and run time
 * only (not by id), so jobs added together would run in any order: given `spacedFrom` (a time,
 * as PostgreSQL's text of it), those without a run time of their own run from it one microsecond
 * apart, in the order given. `?` placeholders, as the SQL helpers take them.
 */
export function addJobsStatement(
  specs: readonly JobSpec[],
  spacedFrom: string | null = null,
): { sql: string; params: unknown[] } {
  const rows = specs.map((spec, n) => ({
    n,
    task: spec.task,
    payload: spec.payload,
    queue: spec.queue ?? null,
    key: spec.key ?? null,
    runAt: spec.runAt?.toISOString() ?? null,
    maxAttempts: spec.maxAttempts ?? null,
  }));
  return {
    sql:
      `select count(*)::int as "added" from "${JOBS_SCHEMA}".add_jobs(array(` +
      `select row(s."task", s."payload", s."queue", coalesce(s."runAt", ` +
      `?::timestamptz + s."n" * interval '1 microsecond'), s."maxAttempts", s."key", ` +
      `null, null)::"${JOBS_SCHEMA}".job_spec from json_to_recordset(?::json) as s("n" int, ` +
      `"task" text, "payload" json, "queue" text, "key" text, "runAt" timestamptz, ` +
      `"maxAttempts" int) order by s."n"))`,
    params: [spacedFrom, JSON.stringify(rows)],
  };
}

/**
 * One statement that removes the pending jobs of these keys inside the caller's transaction (a
 * job running now runs to its end, and is not retried). `?` placeholders, as the SQL helpers
 * take them.
 */
export function removeJobsStatement(keys: readonly string[]): { sql: string; params: unknown[] } {
  return {
    sql:
      `select count("${JOBS_SCHEMA}".remove_job(k))::int as "removed" ` +
      `from json_array_elements_text(?::json) as k`,
    params: [JSON.stringify(keys)],
  };
}

/**
 * How long after a job of a named queue finished a worker is nudged to look for the queue's next
 * job. graphile-worker frees the queue as it moves on, without waiting for that (its worker asks
 * for a job at once, often before the queue is free): the next job would wait for a poll.
 */
const NEXT_IN_QUEUE_MS = 30;

/**
 * graphile-worker's log lines as the service's: its chatter (a job done) only at debug; while its
 * connection is lost, nothing above debug (the outage is told once, by `connection`, however
 * often it retries).
 */
function logFactory(logger: Logger, connection: DependencyState): LogFunctionFactory {
  const log = logger.child({ component: 'jobs' });
  return (scope) => (level, message, meta) => {
    // graphile-worker writes a failed job's stack into its message: the message keeps its first
    // line, the error goes in `err` (serialized as every error is: its frames in their field).
    const error = meta?.['error'];
    const job = meta?.['job'] as { task_identifier?: string; id?: string } | undefined;
    const fields = {
      task: scope.taskIdentifier ?? job?.task_identifier,
      jobId: scope.jobId ?? job?.id,
      ...(error instanceof Error && { err: error }),
    };
    const text = scrub((message.split('\n', 1)[0] ?? '').replace(/:$/, ''));
    switch (connection.isDown ? 'debug' : level) {
      case 'error':
        log.error(fields, text);
        break;
      case 'warning':
        log.warn(fields, text);
        break;
      case 'info':
        log.debug(fields, text);
        break;
      default:
        log.trace(fields, text);
    }
  };
}

/**
 * Waits (a second at most) until no connection of `pool` is in use or waited for: graphile-worker
 * records a finished job's outcome without waiting for it, so one may still be under way when its
 * runner has stopped, and a pool that has ended refuses it.
 */
async function idle(pool: Pool): Promise<void> {
  for (let waited = 0; waited < 1_000; waited += 10) {
    if (pool.waitingCount === 0 && pool.idleCount === pool.totalCount) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** graphile-worker's task list of `tasks`. */
function taskListOf(tasks: JobQueueOptions['tasks']): TaskList {
  return Object.fromEntries(
    Object.entries(tasks).map(([name, handler]) => [
      name,
      (payload: unknown, helpers: JobHelpers) =>
        handler(payload, {
          signal: helpers.abortSignal,
          attempt: helpers.job.attempts,
          maxAttempts: helpers.job.max_attempts,
        }),
    ]),
  );
}

/** graphile-worker's recurring items of `recurring`. */
function cronOf(recurring: NonNullable<JobQueueOptions['recurring']>): CronItem[] {
  return recurring.map((job) => ({
    task: job.task,
    match: job.match,
    identifier: job.task,
    options: {
      backfillPeriod: 0,
      maxAttempts: 1,
      ...(job.queue && { queueName: job.queue }),
      ...(job.key && { jobKey: job.key }),
    },
  }));
}

/**
 * The worker pool's events: its LISTEN connection's health told to `connection`, and the next job
 * of a queue taken at once when one of that queue completes.
 */
function poolEvents(connection: DependencyState): WorkerEvents {
  const events = new EventEmitter() as WorkerEvents;
  // Its LISTEN connection is the queue's health: lost, it is told once (then retried quietly).
  events.on('pool:listen:error', ({ error }) => connection.failed(error));
  events.on('pool:listen:success', () => connection.recovered());
  let workers: WorkerPool | null = null;
  events.on('pool:create', ({ workerPool }) => {
    workers = workerPool;
  });
  // A pool shutting down releases its workers, and nudging a released worker throws (an assertion,
  // in a timer: the process's uncaught exception); the nudge below may come after it.
  const shuttingDown = ({ workerPool }: { workerPool: WorkerPool }): void => {
    if (workers === workerPool) {
      workers = null;
    }
  };
  events.on('pool:gracefulShutdown', shuttingDown);
  events.on('pool:forcefulShutdown', shuttingDown);
  events.on('pool:release', shuttingDown);
  events.on('job:complete', ({ job }) => {
    if (job.job_queue_id !== null) {
      setTimeout(() => workers?.nudge(1), NEXT_IN_QUEUE_MS).unref();
    }
  });
  return events;
}

/** How long a job queue's connection stays open unused. */
const IDLE_CONNECTION_MS = 1_000;

/**
 * Starts this instance's worker pool on `url`. graphile-worker is an ES module: it is loaded by
 * `import()`, which Node 22.12+ also serves to the compiled CommonJS (as require of an ES module).
 */
export async function startJobQueue(options: JobQueueOptions): Promise<JobQueue> {
  const worker = await import('graphile-worker');
  const { logger } = options;
  // One connection LISTENs for new jobs, the others take and finish them (graphile-worker warns
  // of fewer connections than jobs at once); the workers' heartbeat takes one when it is free.
  // A job holds one only to be taken and to be recorded, so a burst's connections close a second
  // after it (pg's default keeps them 10 s): several instances' idle pools on one server would
  // otherwise hold its connections (the suite's PostgreSQL, 100, ran out).
  const pool = new Pool({
    connectionString: options.url,
    max: options.concurrency,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
  });
  const lost = (error: Error): void =>
    logger.debug({ component: 'jobs', err: error }, 'job queue connection lost');
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
  const taskList = taskListOf(options.tasks);
  const cron = cronOf(options.recurring ?? []);
  const connection = new DependencyState('job queue', logger);
  const graphileLogger = new worker.Logger(logFactory(logger, connection));
  const events = poolEvents(connection);
  // A dead instance's locks are freed by the others (graphile-worker frees them after 4 hours).
  const heartbeat = watchDeadWorkers({ pool, events, schema: JOBS_SCHEMA, logger });
  const run = (): Promise<Runner> =>
    worker.run({
      pgPool: pool,
      concurrency: options.concurrency,
      pollInterval: options.pollIntervalMs,
      gracefulShutdownAbortTimeout: options.shutdownAbortMs,
      noHandleSignals: true,
      taskList,
      // Given (even empty), so that no crontab file is looked for.
      parsedCronItems: worker.parseCronItems(cron),
      logger: graphileLogger,
      events,
      // Outcomes recorded in (immediate) batches: a batch that cannot be recorded (the database
      // away) stops the pool, which `watch` starts again; recorded one by one, such a failure is
      // a rejection nobody awaits, which would end the process.
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    });
  let runner: Runner;
  try {
    runner = await run();
  } catch (error) {
    await heartbeat.stop();
    await pool.end();
    throw error;
  }
  const kept = keptRunning(run, runner, logger);
  let closed = false;
  events.on('pool:gracefulShutdown', ({ message }) => {
    if (!closed) {
      logger.warn({ component: 'jobs', reason: message }, 'job queue pool stopping');
    }
  });
  giveUpStuckPools(events, options.shutdownAbortMs, (workerPool) => {
    if (closed) {
      return;
    }
    logger.warn(
      { component: 'jobs', pool: workerPool.id },
      'a job queue pool did not stop in time; given up: the others free its jobs, a new one starts',
    );
    heartbeat.forget(workerPool.id);
    kept.replace();
  });
  return {
    async add(spec) {
      await kept.runner().addJob(spec.task, spec.payload, {
        ...(spec.queue && { queueName: spec.queue }),
        ...(spec.key && { jobKey: spec.key }),
        ...(spec.runAt && { runAt: spec.runAt }),
        ...(spec.maxAttempts && { maxAttempts: spec.maxAttempts }),
      });
    },
    async dropIdleQueues() {
      // On the pool given: releasing the utilities leaves it open.
      const utils = await worker.makeWorkerUtils({ pgPool: pool, logger: graphileLogger });
      try {
        await utils.cleanup({ tasks: ['GC_JOB_QUEUES'] });
      } finally {
        await utils.release();
      }
    },
    async close() {
      if (closed) {
        return;
      }
      closed = true;
      await kept.close();
      await heartbeat.stop();
      await idle(pool);
      await pool.end();
    },
  };
}
