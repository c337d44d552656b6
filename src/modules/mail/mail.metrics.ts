import { Counter } from 'prom-client';

/** What mail counts: attempts by kind and outcome, and messages made or left unmade. */
export interface MailMetrics {
  /** `outcome`: sent, retry (failed, another attempt due) or failed (given up). */
  attempts: Counter<'kind' | 'outcome'>;
  /** Messages the dispatcher made (`mode`: smtp, or kept for the development page). */
  made: Counter<'kind' | 'mode'>;
  /** Messages not made: `reason` unverified, preference or rate_limit. */
  skipped: Counter<'kind' | 'reason'>;
}

/** Makes counters of their own: the process's metrics', or unregistered ones (METRICS=false). */
type CounterMaker = <L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
) => Counter<L>;

const unregistered: CounterMaker = (name, help, labelNames) =>
  new Counter({ name, help, labelNames, registers: [] });

/** Mail's counters, in `metrics` when the process serves any. */
export function mailMetrics(metrics: { counter: CounterMaker } | null): MailMetrics {
  const counter: CounterMaker = metrics ? (...args) => metrics.counter(...args) : unregistered;
  return {
    attempts: counter('mail_attempts_total', 'SMTP attempts, by kind and outcome', [
      'kind',
      'outcome',
    ]),
    made: counter('mail_messages_made_total', 'Messages made from changes, by kind', [
      'kind',
      'mode',
    ]),
    skipped: counter('mail_messages_skipped_total', 'Messages not made, by kind and reason', [
      'kind',
      'reason',
    ]),
  };
}
