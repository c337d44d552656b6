import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { jitteredMs } from '../../platform/jobs/backoff';
import type { JobRun } from '../../platform/jobs/job-queue';
import { recordPatiently } from '../../platform/jobs/record-patiently';
import { inSqlTransaction } from '../../platform/sql/sql-transaction';
import { MailStatus } from './mail-message.entity';
import { sendJob, type SendOrder, sendOrderOf } from './mail.jobs';
import { MAIL_LIMITS } from './mail.limits';
import type { MailMetrics } from './mail.metrics';
import { type MailRecord, MailStore } from './mail.store';
import type { MailTransport, SendOutcome } from './mail.transport';

export interface DeliveryDeps {
  em: () => EntityManager;
  transport: MailTransport;
  /** The envelope's sender: MAIL_FROM's address. */
  envelopeFrom: string;
  /** Seconds before each retry (MAIL_RETRY_SCHEDULE). */
  retrySchedule: readonly number[];
  logger: Logger;
  metrics: MailMetrics;
}

/** The attempt was interrupted by a shutdown: its job runs again (nothing was recorded). */
class SendInterruptedError extends Error {
  constructor() {
    super('mail attempt interrupted by a shutdown; it runs again');
  }
}

/** What follows an attempt: sent, a retry at a time, or given up. */
function nextOf(order: SendOrder, outcome: SendOutcome, schedule: readonly number[]) {
  if (outcome.sent) {
    return { status: MailStatus.SENT, retryAt: null };
  }
  const delay = outcome.permanent ? undefined : schedule[order.attempt - 1];
  return delay === undefined
    ? { status: MailStatus.FAILED, retryAt: null }
    : {
        status: MailStatus.PENDING,
        retryAt: new Date(Date.now() + jitteredMs(delay, MAIL_LIMITS.jitter)),
      };
}

/**
 * Records an attempt and what follows from it in one transaction: the message's state and the
 * retry's job, when one is due. An attempt recorded already (a job run twice) is not again.
 */
async function record(
  order: SendOrder,
  message: MailRecord,
  outcome: SendOutcome,
  deps: DeliveryDeps,
): Promise<void> {
  const { status, retryAt } = nextOf(order, outcome, deps.retrySchedule);
  const recorded = await inSqlTransaction(deps.em(), async (tx) => {
    const store = new MailStore(tx);
    const current = await store.lock(order.mailId);
    if (!current || current.attemptCount >= order.attempt) {
      return false;
    }
    await store.settle(order.mailId, {
      status,
      attemptCount: order.attempt,
      nextAttemptAt: retryAt?.toISOString() ?? null,
      lastError: outcome.sent ? null : outcome.error,
      sentAt: outcome.sent ? new Date().toISOString() : null,
    });
    if (retryAt) {
      await store.queue([sendJob({ mailId: order.mailId, attempt: order.attempt + 1 }, retryAt)]);
    }
    return true;
  });
  if (!recorded) {
    return;
  }
  // Ids and outcomes only: never an address, a subject or a link (they carry tokens).
  const fields = {
    component: 'mail',
    mailId: order.mailId,
    kind: message.kind,
    attempt: order.attempt,
    ms: outcome.durationMs,
  };
  const result = outcome.sent ? 'sent' : retryAt ? 'retry' : 'failed';
  deps.metrics.attempts.inc({ kind: message.kind, outcome: result });
  if (outcome.sent) {
    deps.logger.info(fields, 'mail sent');
  } else {
    const log = { ...fields, code: outcome.code, error: outcome.error, retryAt };
    deps.logger[retryAt ? 'info' : 'warn'](log, retryAt ? 'mail attempt failed' : 'mail given up');
  }
}

/**
 * Makes one attempt at a message (a `mail_send` job): unless it was made already or the
 * message is settled. A shutdown that interrupts it records nothing: the job runs again.
 */
export async function sendAttempt(
  payload: unknown,
  run: JobRun,
  deps: DeliveryDeps,
): Promise<void> {
  const order = sendOrderOf(payload);
  if (!order) {
    deps.logger.warn({ component: 'mail' }, 'mail job without a message: dropped');
    return;
  }
  const target = await new MailStore(deps.em()).withRaw(order.mailId);
  if (
    !target ||
    target.message.status !== MailStatus.PENDING ||
    target.message.attemptCount >= order.attempt
  ) {
    return;
  }
  const { message, raw } = target;
  const outcome = await deps.transport.send(
    { from: deps.envelopeFrom, to: message.recipient },
    raw,
  );
  if (run.signal.aborted && !outcome.sent) {
    throw new SendInterruptedError();
  }
  // Handed over: a database away now must not make the job run again and send it twice.
  await recordPatiently(() => record(order, message, outcome, deps), run.signal);
}
