import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook backlogs bounded (issue 39): an endpoint's pending deliveries are counted by a partial
 * index of those rows alone (for WEBHOOK_MAX_BACKLOG, WebhookEndpoint.backlog and the metrics),
 * and `resumed_at` says when an endpoint was last enabled again, so that the deliveries it kept
 * from before, resumed then, do not count towards the bound.
 */
export class Migration20261207080000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhook_endpoints" add column "resumed_at" timestamptz null;`);
    this.addSql(
      `create index "webhook_deliveries_pending_idx" on "webhook_deliveries" ` +
        `("endpoint_id", "created_at") where "status" = 'pending';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "webhook_deliveries_pending_idx";`);
    this.addSql(`alter table "webhook_endpoints" drop column "resumed_at";`);
  }
}
