import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { type SecretBox, SecretUnreadableError } from '../../platform/auth/secret-box';
import { type OutboundOutcome, postOutbound } from '../../platform/http/outbound';
import { jitteredMs } from '../../platform/jobs/backoff';
import type { JobRun } from '../../platform/jobs/job-queue';
import { recordPatiently } from '../../platform/jobs/record-patiently';
import { inSqlTransaction } from '../../platform/sql/sql-transaction';
import { WebhookDeliveryStatus } from './webhook-delivery.entity';
import { type DeliveryTarget, WebhookDeliveryStore } from './webhook-delivery.store';
import { type AttemptOrder, attemptJob, attemptOrderOf } from './webhook.jobs';
import { WEBHOOK_LIMITS } from './webhook.limits';
import { signedHeaders } from './webhook.signing';
import { WebhookEndpointStore } from './webhook.store';

/** How deliveries are made: where to, how often to retry, when to give an endpoint up. */
export interface DeliveryPolicy {
  allowPrivateNetworks: boolean;
  requireHttps: boolean;
  /** Seconds before each retry of a failed event, in order (WEBHOOK_RETRY_SCHEDULE). */
  retrySchedule: readonly number[];
  /** Consecutive failed events that disable an endpoint (WEBHOOK_DISABLE_AFTER). */
  disableAfter: number;
  /** Hours of failed attempts with no success between that disable it (WEBHOOK_DISABLE_AFTER_HOURS). */
  disableAfterHours: number;
  /** An endpoint's attempts under way at once: its lanes (WEBHOOK_CONCURRENCY_PER_ENDPOINT). */
  concurrencyPerEndpoint: number;
}

export interface DeliveryDeps {
  em: () => EntityManager;
  secrets: SecretBox;
  policy: DeliveryPolicy;
  logger: Logger;
}

/** The attempt was interrupted by a shutdown: its job runs again (nothing was recorded). */
class AttemptInterruptedError extends Error {
  constructor() {
    super('webhook attempt interrupted by a shutdown; it runs again');
  }
}

/** The endpoint's secrets, opened (the previous one while it still signs). */
async function secretsOf(em: EntityManager, target: DeliveryTarget, box: SecretBox) {
  const endpointId = target.delivery.endpointId;
  const sealed = await new WebhookEndpointStore(em).secrets(endpointId);
  if (!sealed) {
    return [];
  }
  const previous = sealed.previous === null ? [] : [box.open(sealed.previous, endpointId)];
  return [box.open(sealed.current, endpointId), ...previous];
}

/** Sends the delivery's body, signed; a secret that cannot be opened is a failed attempt. */
async function send(
  target: DeliveryTarget,
  deps: DeliveryDeps,
  signal: AbortSignal,
): Promise<{ outcome: OutboundOutcome; sentAt: Date }> {
  const sentAt = new Date();
  let secrets: string[];
  try {
    secrets = await secretsOf(deps.em(), target, deps.secrets);
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) {
      throw error;
    }
    const reason = 'signing secret unreadable: was WEBHOOK_SECRET_KEY (or JWT_SECRET) changed?';
    return { outcome: { status: null, durationMs: 0, error: reason, aborted: false }, sentAt };
  }
  const outcome = await postOutbound({
    url: target.url,
    body: target.payload,
    headers: signedHeaders(target.delivery.id, sentAt, target.payload, secrets),
    timeoutMs: WEBHOOK_LIMITS.timeoutMs,
    maxResponseBytes: WEBHOOK_LIMITS.responseBytes,
    allowPrivate: deps.policy.allowPrivateNetworks,
    requireHttps: deps.policy.requireHttps,
    signal,
  });
  return { outcome, sentAt };
}

/**
 * Records an attempt, with what follows from it, in one transaction: the attempt; the
 * delivery's state; the retry's job, when one is due (automatic attempts only, while the
 * schedule lasts); and the endpoint's count of failed events (reset by a success; at the limit
 * the endpoint is disabled). An attempt recorded already (a job run twice) is not recorded again.
 */
async function record(
  order: AttemptOrder,
  target: DeliveryTarget,
  sent: { outcome: OutboundOutcome; sentAt: Date },
  deps: DeliveryDeps,
): Promise<void> {
  const { outcome, sentAt } = sent;
  const { policy, logger } = deps;
  const endpointId = target.delivery.endpointId;
  const succeeded = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const delay = order.manual || succeeded ? undefined : policy.retrySchedule[order.attempt - 1];
  const retryAt =
    delay === undefined ? null : new Date(Date.now() + jitteredMs(delay, WEBHOOK_LIMITS.jitter));
  const status = succeeded
    ? WebhookDeliveryStatus.DELIVERED
    : retryAt
      ? WebhookDeliveryStatus.PENDING
      : WebhookDeliveryStatus.FAILED;
  const disabled = await inSqlTransaction(deps.em(), async (tx) => {
    const deliveries = new WebhookDeliveryStore(tx);
    const current = await deliveries.lock(order.deliveryId);
    if (!current || current.attemptCount >= order.attempt) {
      return false;
    }
    await deliveries.recordAttempt({
      deliveryId: order.deliveryId,
      endpointId,
      number: order.attempt,
      manual: order.manual,
      statusCode: outcome.status,
      durationMs: outcome.durationMs,
      error: outcome.error?.slice(0, WEBHOOK_LIMITS.errorLength) ?? null,
      succeeded,
      retryAt: retryAt?.toISOString() ?? null,
      sentAt,
    });
    await deliveries.settle(order.deliveryId, {
      status,
      attemptCount: order.attempt,
      nextAttemptAt: retryAt?.toISOString() ?? null,
    });
    if (retryAt) {
      const next = { deliveryId: order.deliveryId, attempt: order.attempt + 1, manual: false };
      await deliveries.queue([
        attemptJob(next, target.delivery, policy.concurrencyPerEndpoint, retryAt),
      ]);
    }
    const endpoints = new WebhookEndpointStore(tx);
    if (succeeded) {
      await endpoints.succeeded(endpointId);
      return false;
    }
    const last = outcome.status === null ? outcome.error : `HTTP ${outcome.status}`;
    const hours = policy.disableAfterHours;
    if (
      await endpoints.failedAttempt(endpointId, hours, `failing for ${hours} h (last: ${last})`)
    ) {
      return true;
    }
    if (status !== WebhookDeliveryStatus.FAILED || order.manual) {
      return false;
    }
    const reason = `${policy.disableAfter} consecutive events failed (last: ${last})`;
    return endpoints.failedEvent(endpointId, policy.disableAfter, reason);
  });
  const fields = {
    component: 'webhooks',
    endpointId,
    deliveryId: order.deliveryId,
    attempt: order.attempt,
    status: outcome.status,
    ms: outcome.durationMs,
  };
  if (succeeded) {
    logger.debug(fields, 'webhook delivered');
  } else {
    logger.info({ ...fields, error: outcome.error, retryAt }, 'webhook attempt failed');
  }
  if (disabled) {
    logger.warn({ component: 'webhooks', endpointId }, 'webhook endpoint disabled');
  }
}

/**
 * Makes one attempt at a delivery (a `webhook_deliver` job): unless it was made already, the
 * delivery is settled, or its endpoint is disabled (the delivery then stays pending: enabling the
 * endpoint queues it again). A shutdown that interrupts it records nothing: the job runs again.
 */
export async function deliverAttempt(
  payload: unknown,
  run: JobRun,
  deps: DeliveryDeps,
): Promise<void> {
  const order = attemptOrderOf(payload);
  if (!order) {
    deps.logger.warn({ component: 'webhooks' }, 'webhook job without a delivery: dropped');
    return;
  }
  const store = new WebhookDeliveryStore(deps.em());
  const target = await store.target(order.deliveryId);
  if (
    !target ||
    !target.enabled ||
    target.delivery.status !== WebhookDeliveryStatus.PENDING ||
    target.delivery.attemptCount >= order.attempt
  ) {
    return;
  }
  const sent = await send(target, deps, run.signal);
  if (sent.outcome.aborted) {
    throw new AttemptInterruptedError();
  }
  // Sent: a database away now must not make the job run again and send it twice.
  await recordPatiently(() => record(order, target, sent, deps), run.signal);
}
