import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { tableOf } from '../../platform/sql/read-model';
import { arrayLiteral, byIds, executeRows, selectByIds, selectRows } from '../../platform/sql/rows';
import { WebhookDelivery, WebhookDeliveryStatus } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook.entity';

/** Every endpoint's undelivered deliveries, summed (no endpoint named): what the metrics show. */
export interface BacklogTotals {
  /** Of enabled endpoints: being sent. */
  enabled: number;
  /** Of disabled endpoints: kept until they are enabled again. */
  disabled: number;
  /** The largest backlog of one enabled endpoint (the nearest WEBHOOK_MAX_BACKLOG). */
  largest: number;
}

/** An endpoint disabled for its backlog, and how many deliveries it counted. */
export interface OverBacklog {
  endpointId: string;
  backlog: number;
}

const D = `"${tableOf(WebhookDelivery)}"`;
const E = `"${tableOf(WebhookEndpoint)}"`;
// Undelivered: pending (due, waiting for a retry, or held while the endpoint is disabled). The
// partial index webhook_deliveries_pending_idx holds these rows only, so counting them reads
// neither the delivered ones nor their bodies.
const PENDING = `d."status" = '${WebhookDeliveryStatus.PENDING}'`;

const OF = byIds(
  `select d."endpoint_id" as "id", count(*)::int as "n" from ${D} d ` +
    `where d."endpoint_id" {match} and ${PENDING} group by d."endpoint_id"`,
);
const TOTALS =
  `select coalesce(sum(b."n") filter (where b."enabled"), 0)::float8 as "enabled", ` +
  `coalesce(sum(b."n") filter (where not b."enabled"), 0)::float8 as "disabled", ` +
  `coalesce(max(b."n") filter (where b."enabled"), 0)::float8 as "largest" ` +
  `from (select e."enabled", count(*) as "n" from ${D} d join ${E} e on e."id" = d."endpoint_id" ` +
  `where ${PENDING} group by e."id", e."enabled") b`;
// Those of `ids` whose backlog made since they were last enabled (resumed_at) passes the bound
// are disabled, once (`e."enabled"` is tested again on the row locked by the update).
const DISABLE_OVER =
  `with "over" as (select d."endpoint_id" as "id", count(*)::int as "n" from ${D} d ` +
  `join ${E} e on e."id" = d."endpoint_id" where d."endpoint_id" = any(?::uuid[]) and ${PENDING} ` +
  `and e."enabled" and d."created_at" >= coalesce(e."resumed_at", '-infinity') ` +
  `group by d."endpoint_id" having count(*) > ?) ` +
  `update ${E} e set "enabled" = false, "disabled_reason" = ?, "updated_at" = now() ` +
  `from "over" o where e."id" = o."id" and e."enabled" returning e."id", o."n"`;

/** Endpoints' backlogs: their undelivered deliveries, counted, and the bound on them. */
export class WebhookBacklogStore {
  constructor(private readonly em: EntityManager) {}

  /** The backlog of each endpoint of `ids` (0 for one with none, or none such). */
  async of(ids: readonly string[]): Promise<Map<string, number>> {
    const rows = ids.length === 0 ? [] : await selectByIds(this.em, OF, ids);
    return new Map(rows.map((row) => [String(row['id']), Number(row['n'])]));
  }

  async totals(): Promise<BacklogTotals> {
    const [row] = await selectRows(this.em, TOTALS);
    return {
      enabled: Number(row?.['enabled'] ?? 0),
      disabled: Number(row?.['disabled'] ?? 0),
      largest: Number(row?.['largest'] ?? 0),
    };
  }

  /**
   * Disables with `reason` each enabled endpoint of `ids` that has more than `max` undelivered
   * deliveries made since it was last enabled (those from before are its catching up); their
   * deliveries stay pending. Answers those it disabled.
   */
  async disableOver(ids: readonly string[], max: number, reason: string): Promise<OverBacklog[]> {
    if (ids.length === 0) {
      return [];
    }
    const rows = await executeRows(this.em, DISABLE_OVER, [arrayLiteral(ids), max, reason]);
    return rows.map((row) => ({ endpointId: String(row['id']), backlog: Number(row['n']) }));
  }
}

/** The loaders of a request: endpoints' backlogs, those of one answer counted at once. */
export function webhookLoaders(stores: { readonly webhookBacklogs: WebhookBacklogStore }) {
  return {
    webhookBacklogs: new DataLoader<string, number>(async (ids) => {
      const found = await stores.webhookBacklogs.of(ids);
      return ids.map((id) => found.get(id) ?? 0);
    }),
  };
}

/** A request's loaders of webhooks (webhookLoaders). */
export type WebhookLoaders = ReturnType<typeof webhookLoaders>;
