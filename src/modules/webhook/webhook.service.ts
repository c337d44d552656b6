import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../platform/auth/secret-box';
import { type ConnectionResult, toConnection } from '../../platform/graphql/connection';
import { outboundUrlProblem } from '../../platform/http/outbound';
import { ConflictError, ValidationFailedError } from '../../platform/shared/errors';
import type { SliceRequest } from '../../platform/sql/keyset';
import type { UserRecord } from '../user';
import { WebhookDeliveryStatus } from './webhook-delivery.entity';
import type { WebhookAttemptRecord, WebhookDeliveryRecord } from './webhook-delivery.store';
import type { CreateWebhookEndpointInput, UpdateWebhookEndpointInput } from './webhook.inputs';
import { attemptJob } from './webhook.jobs';
import { WEBHOOK_LIMITS } from './webhook.limits';
import { newWebhookSecret } from './webhook.signing';
import type { EndpointChanges, WebhookEndpointRecord } from './webhook.store';
import type { StoreSet } from '../../platform/composition/context';
import type { WebhookDeliveryStore } from './webhook-delivery.store';
import type { WebhookEndpointStore } from './webhook.store';

/** The stores webhook endpoints work with. */
export type WebhookStores = StoreSet<{
  webhookEndpoints: WebhookEndpointStore;
  webhookDeliveries: WebhookDeliveryStore;
}>;
type Stores = WebhookStores;

/** Why a URL at a private address is refused, and the setting that allows it. */
const PRIVATE_ADDRESS_MESSAGE =
  'The URL names a private, loopback or link-local address, which webhooks call only when the ' +
  'service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (for a receiver on your own network)';

/** What endpoints may be, and how their secrets are kept. */
export interface WebhookPolicy {
  secrets: SecretBox;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: private, loopback and link-local targets too. */
  allowPrivateNetworks: boolean;
  /** In production, https targets only. */
  requireHttps: boolean;
  /** An endpoint's lanes (WEBHOOK_CONCURRENCY_PER_ENDPOINT): where its attempts' jobs go. */
  concurrencyPerEndpoint: number;
}

/** An endpoint with its secret, which is shown when made and when rotated, never again. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpointRecord;
  secret: string;
}

/** The rules of a user's webhook endpoints: theirs alone, at most ten, at allowed URLs. */
export class WebhookService {
  constructor(
    private readonly stores: Stores,
    private readonly policy: WebhookPolicy,
  ) {}

  /** The URL as stored, or BAD_USER_INPUT on `url` (INVALID_FORMAT, HTTPS_REQUIRED, PRIVATE_ADDRESS). */
  private checkedUrl(text: string): string {
    let url: URL;
    try {
      url = new URL(text.trim());
    } catch {
      throw ValidationFailedError.of('url', 'INVALID_FORMAT');
    }
    const problem = outboundUrlProblem(url, {
      allowPrivate: this.policy.allowPrivateNetworks,
      requireHttps: this.policy.requireHttps,
    });
    if (problem === 'PRIVATE_ADDRESS') {
      throw new ValidationFailedError({ url: problem }, PRIVATE_ADDRESS_MESSAGE);
    }
    if (problem) {
      throw ValidationFailedError.of('url', problem);
    }
    if (url.href.length > WEBHOOK_LIMITS.url.max) {
      throw ValidationFailedError.of('url', 'TOO_LONG');
    }
    return url.href;
  }

  /** The caller's endpoints, oldest first. */
  list(viewer: UserRecord): Promise<WebhookEndpointRecord[]> {
    return this.stores.webhookEndpoints.ofUser(viewer.id);
  }

  /** A new endpoint and its secret; the eleventh is refused (WEBHOOK_ENDPOINT_LIMIT_REACHED). */
  async create(viewer: UserRecord, input: CreateWebhookEndpointInput): Promise<EndpointWithSecret> {
    const url = this.checkedUrl(input.url);
    const id = randomUUID();
    const secret = newWebhookSecret();
    const sealed = this.policy.secrets.seal(secret, id);
    const endpoint = await this.stores.transaction(async (tx) => {
      // Counted under the user's row lock: two concurrent creations cannot both pass.
      await tx.webhookEndpoints.lockOwner(viewer.id);
      if ((await tx.webhookEndpoints.countOf(viewer.id)) >= WEBHOOK_LIMITS.endpointsPerUser) {
        throw new ConflictError(
          'WEBHOOK_ENDPOINT_LIMIT_REACHED',
          `A user has at most ${WEBHOOK_LIMITS.endpointsPerUser} webhook endpoints`,
        );
      }
      return tx.webhookEndpoints.insert(
        { id, userId: viewer.id, url, eventTypes: input.eventTypes },
        sealed,
      );
    });
    return { endpoint, secret };
  }

  /**
   * Changes one of the caller's endpoints. Enabling it again starts its failures from 0 and
   * resumes the deliveries it kept while disabled (see resume).
   */
  async update(
    viewer: UserRecord,
    input: UpdateWebhookEndpointInput,
  ): Promise<WebhookEndpointRecord> {
    const endpoint = await this.stores.webhookEndpoints.own(viewer.id, input.endpointId);
    const changes: EndpointChanges = {};
    if (input.url !== undefined) {
      changes.url = this.checkedUrl(input.url);
    }
    if (input.eventTypes !== undefined) {
      changes.eventTypes = input.eventTypes;
    }
    if (input.enabled === true && !endpoint.enabled) {
      return this.stores.transaction(async (tx) => {
        const enabled = await tx.webhookEndpoints.update(endpoint.id, {
          ...changes,
          enabled: true,
          disabledReason: null,
          consecutiveFailures: 0,
          failingSince: null,
          resumedAt: new Date().toISOString(),
        });
        await this.resume(tx, enabled);
        return enabled;
      });
    }
    if (input.enabled === false && endpoint.enabled) {
      Object.assign(changes, { enabled: false, disabledReason: 'Disabled by its owner' });
    }
    return Object.keys(changes).length === 0
      ? endpoint
      : this.stores.webhookEndpoints.update(endpoint.id, changes);
  }

  /**
   * Queues an attempt now for each pending delivery of an endpoint being enabled, in the log's
   * order: those it kept while disabled (their jobs, run meanwhile, left them be), a waiting retry
   * brought forward (its job's key: it takes that job's place), the schedule going on after it.
   */
  private async resume(tx: Stores, endpoint: WebhookEndpointRecord): Promise<void> {
    const pending = await tx.webhookDeliveries.pendingOf(endpoint.id);
    const lanes = this.policy.concurrencyPerEndpoint;
    await tx.webhookDeliveries.queue(
      pending.map((delivery) =>
        attemptJob(
          { deliveryId: delivery.id, attempt: delivery.attemptCount + 1, manual: false },
          delivery,
          lanes,
        ),
      ),
      // From the database's clock ('now': the transaction's time), one microsecond apart.
      'now',
    );
  }

  /** Deletes one of the caller's endpoints with its deliveries (their jobs find nothing). */
  async remove(viewer: UserRecord, endpointId: string): Promise<WebhookEndpointRecord> {
    const endpoint = await this.stores.webhookEndpoints.own(viewer.id, endpointId);
    await this.stores.transaction(async (tx) => {
      // Its deliveries first, then the endpoint: the order in which an attempt being recorded
      // holds them (webhook.delivery.ts), so the two wait for each other instead of deadlocking.
      await tx.webhookDeliveries.lockAllOf(endpoint.id);
      await tx.webhookEndpoints.remove(endpoint.id);
    });
    return endpoint;
  }

  /** A new secret for one of the caller's endpoints; the old one signs beside it for a day. */
  async rotate(viewer: UserRecord, endpointId: string): Promise<EndpointWithSecret> {
    const endpoint = await this.stores.webhookEndpoints.own(viewer.id, endpointId);
    const secret = newWebhookSecret();
    const rotated = await this.stores.webhookEndpoints.rotate(
      endpoint.id,
      this.policy.secrets.seal(secret, endpoint.id),
      new Date(Date.now() + WEBHOOK_LIMITS.previousSecretMs),
    );
    return { endpoint: rotated, secret };
  }

  /** The attempts at deliveries to one of the caller's endpoints, newest first. */
  async attempts(
    viewer: UserRecord,
    endpointId: string,
    request: SliceRequest,
  ): Promise<ConnectionResult<WebhookAttemptRecord>> {
    const endpoint = await this.stores.webhookEndpoints.own(viewer.id, endpointId);
    const { slice, count } = await this.stores.webhookDeliveries.attemptsOf(endpoint.id, request);
    return toConnection(slice, count);
  }

  /**
   * Attempts a delivery again, now, with the same webhook-id and body. A pending one's waiting
   * retry is brought forward (its schedule goes on after it); a settled one gets one attempt more.
   * Its endpoint must be enabled (WEBHOOK_ENDPOINT_DISABLED).
   */
  async redeliver(viewer: UserRecord, deliveryId: string): Promise<WebhookDeliveryRecord> {
    const owned = await this.stores.webhookDeliveries.own(viewer.id, deliveryId);
    const endpoint = await this.stores.webhookEndpoints.own(viewer.id, owned.endpointId);
    if (!endpoint.enabled) {
      throw new ConflictError(
        'WEBHOOK_ENDPOINT_DISABLED',
        'The endpoint is disabled: enable it with updateWebhookEndpoint first',
      );
    }
    return this.stores.transaction(async (tx) => {
      const delivery = (await tx.webhookDeliveries.lock(deliveryId)) ?? owned;
      const manual = delivery.status !== WebhookDeliveryStatus.PENDING;
      const order = { deliveryId, attempt: delivery.attemptCount + 1, manual };
      const reopened = await tx.webhookDeliveries.reopen(deliveryId);
      await tx.webhookDeliveries.queue([
        attemptJob(order, delivery, this.policy.concurrencyPerEndpoint),
      ]);
      return reopened;
    });
  }
}
