import type { SampledGauges } from '../../platform/observability/metrics';
import type { BacklogTotals } from './webhook-backlog.store';

/**
 * The webhooks' backlogs in the metrics, read from the database at each scrape: sums and the
 * largest, never a label per endpoint (a series each would grow with the users).
 */
export function backlogMetrics(metrics: SampledGauges, totals: () => Promise<BacklogTotals>): void {
  metrics.sampledGauges(totals, [
    {
      name: 'webhook_backlog_deliveries',
      help: 'Webhook deliveries not yet delivered to enabled endpoints (due, or waiting to retry)',
      value: (sample) => sample.enabled,
    },
    {
      name: 'webhook_backlog_disabled_deliveries',
      help: 'Webhook deliveries kept for disabled endpoints until they are enabled again',
      value: (sample) => sample.disabled,
    },
    {
      name: 'webhook_backlog_largest_deliveries',
      help: 'The largest backlog of one enabled webhook endpoint (past WEBHOOK_MAX_BACKLOG it is disabled)',
      value: (sample) => sample.largest,
    },
  ]);
}
