import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { SecretBox } from '../../platform/auth/secret-box';
import type { ModuleWorker } from '../../platform/composition/module';
import type { SampledGauges } from '../../platform/observability/metrics';
import type { EventHub } from '../../platform/live/event-hub';
import type { ChangeNotice } from '../meeting';
import type { UserRecord } from '../user';
import type { Context } from './webhook.context';
import type { WebhookPolicy } from './webhook.service';
import { WebhookBacklogStore } from './webhook-backlog.store';
import { backlogMetrics } from './webhook.metrics';
import { startWebhookWorker } from './webhook.worker';
import type { WebhookConfig as WebhookSettings } from './webhook.settings';

/**
 * Connections of the webhook worker's statements (its job queues have their own: see
 * job-queue.ts). Two serve the attempts of every lane: an attempt waits on its receiver, not on
 * them (measured: 400 deliveries to 4 endpoints answering in 50 ms, 4 lanes, went 90/s on 2 and
 * 84/s on 4, the 2 shared cores the bound).
 */
const WEBHOOK_POOL_SIZE = 2;

/** What the webhook module reads of the configuration. */
interface WebhookConfig {
  env: string;
  /** The webhook settings (webhook.settings.ts) but the sealing key, which SecretBox holds. */
  webhooks: Omit<WebhookSettings, 'secretKey'>;
}

/** Builds the webhooks' process dependencies: what endpoints may be, and the secrets' box. */
export const webhookDeps = (setup: {
  config: WebhookConfig;
  secrets: SecretBox;
}): { webhooks: WebhookPolicy } => ({
  webhooks: {
    secrets: setup.secrets,
    allowPrivateNetworks: setup.config.webhooks.allowPrivateNetworks,
    requireHttps: setup.config.env === 'production',
    concurrencyPerEndpoint: setup.config.webhooks.concurrencyPerEndpoint,
  },
});

/** What the webhook worker needs of the app. */
interface WebhookRuntime {
  config: WebhookConfig;
  deps: { webhooks: WebhookPolicy };
  logger: Logger;
  schema: GraphQLSchema;
  /** A URL with sessions of their own, for the job queue's LISTEN. */
  sessionUrl: string;
  /** This instance's committed changes, as its subscribers hear them. */
  hub: EventHub<ChangeNotice>;
  /**
   * A context acting as `user` outside any request, over an entity manager or a context this
   * same function made (a method: the app's takes its own, wider, context back).
   */
  contextOf(user: UserRecord, over: EntityManager | Context): Context;
  /** The process's metrics (null: METRICS=false): the backlogs' gauges join them. */
  metrics: SampledGauges | null;
  /** An ORM of the worker's own (its own small pool), closed by the worker. */
  backgroundOrm(work: string, poolSize: number): Promise<MikroORM>;
}

/**
 * Webhooks are delivered from the change log by jobs any instance runs (graphile-worker), on
 * connections of their own.
 */
export async function webhookWorker(runtime: WebhookRuntime): Promise<ModuleWorker> {
  const { config, deps } = runtime;
  const orm = await runtime.backgroundOrm('webhooks', WEBHOOK_POOL_SIZE);
  const worker = await startWebhookWorker({
    orm,
    sessionUrl: runtime.sessionUrl,
    schema: runtime.schema,
    contextOf: (user, over) => runtime.contextOf(user, over),
    hub: runtime.hub,
    secrets: deps.webhooks.secrets,
    policy: {
      allowPrivateNetworks: deps.webhooks.allowPrivateNetworks,
      requireHttps: deps.webhooks.requireHttps,
      retrySchedule: config.webhooks.retrySchedule,
      disableAfter: config.webhooks.disableAfter,
      disableAfterHours: config.webhooks.disableAfterHours,
      concurrencyPerEndpoint: config.webhooks.concurrencyPerEndpoint,
    },
    maxBacklog: config.webhooks.maxBacklog,
    logger: runtime.logger,
  });
  if (runtime.metrics) {
    backlogMetrics(runtime.metrics, () => new WebhookBacklogStore(orm.em.fork()).totals());
  }
  return {
    async close() {
      // Attempts under way finish (or are abandoned, to run again) before the database closes.
      await worker.close();
      await orm.close(true);
    },
  };
}
