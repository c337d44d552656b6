import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook endpoints disabled by time (issue 39): since when an endpoint's attempts have failed
 * without a success between, so that one failing for WEBHOOK_DISABLE_AFTER_HOURS is disabled
 * whatever its count of failed events.
 */
export class Migration20261207070000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhook_endpoints" add column "failing_since" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_endpoints" drop column "failing_since";`);
  }
}
