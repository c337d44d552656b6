import {
  WebhookAttemptResolver,
  WebhookEndpointResolver,
  WebhookResolver,
} from './webhook.resolver';
import type { ServiceParts } from '../../platform/composition/context';
import { defineModule } from '../../platform/composition/module';
import { webhookSettings } from './webhook.settings';
import { WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity';
import { WebhookBacklogStore, webhookLoaders } from './webhook-backlog.store';
import { WebhookDeliveryStore } from './webhook-delivery.store';
import { WebhookEndpoint } from './webhook.entity';
import { type WebhookPolicy, WebhookService, type WebhookStores } from './webhook.service';
import { WebhookEndpointStore } from './webhook.store';
import { WebhookAttemptConnection } from './webhook.types';
import { webhookDeps, webhookWorker } from './webhook.wiring';

export type { WebhookPolicy } from './webhook.service';

/** Webhooks: endpoints, and the deliveries of meeting changes to them. */
export const webhookModule = defineModule({
  name: 'webhook',
  settings: webhookSettings,
  entities: [WebhookEndpoint, WebhookDelivery, WebhookAttempt],
  // The dispatcher's cursor in the change log (webhook-delivery.store.ts).
  tables: ['webhook_dispatch'],
  resolvers: [
    WebhookResolver,
    WebhookEndpointResolver,
    WebhookAttemptResolver,
    WebhookAttemptConnection.resolver,
  ],
  stores: {
    webhookEndpoints: WebhookEndpointStore,
    webhookDeliveries: WebhookDeliveryStore,
    webhookBacklogs: WebhookBacklogStore,
  },
  loaders: (stores: { readonly webhookBacklogs: WebhookBacklogStore }) => webhookLoaders(stores),
  services: {
    webhooks: (p: ServiceParts<WebhookStores, unknown, { webhooks: WebhookPolicy }>) =>
      new WebhookService(p.stores, p.deps.webhooks),
  },
  deps: webhookDeps,
  worker: webhookWorker,
});
