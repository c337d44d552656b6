import { countWork, StatementProxy } from '../lib/statement-proxy';
import { listenerCut, phase } from './resume-pass';
import { stage, type Stage, unstage } from './resume-setup';

// The resume scenario's SQL statements per event delivered: the subscriptions' reads have no
// request log line to count them, so the service talks to PostgreSQL through the counting proxy.

/** SQL statements per event delivered, from a run behind the statement-counting proxy. */
export interface ResumeStatements {
  /** Outside requests and the listener, less the idle rate, per event delivered. */
  perEvent: number;
  transactionControlPerEvent: number;
  /** The event listener's, per change (its reads of the change log). */
  listenerPerChange: number;
  /** The writes' own, per request (their request log lines). */
  perWrite: number;
  events: number;
}

/** The listener-cut phase once (a change of ten meetings) behind the proxy, LOG_LEVEL=info. */
export async function countResumeStatements(
  dbUrl: string,
  build: { root?: string; name?: string } = {},
): Promise<ResumeStatements> {
  const proxy = await StatementProxy.start(dbUrl);
  let s: Stage | null = null;
  try {
    const staged = await stage(dbUrl, proxy.url, { logLevel: 'info', ...build });
    s = staged;
    // Per event delivered, the count does not grow with the number of changes: a change of ten
    // meetings is enough.
    const counted = await countWork(proxy, staged.service.lines, () =>
      phase(staged, 'counted', listenerCut(staged), { perMeeting: 1, meetings: 10 }),
    );
    const cut = counted.result;
    return {
      perEvent: counted.background / cut.delivered,
      transactionControlPerEvent: counted.transactionControl / cut.delivered,
      listenerPerChange: counted.listener / cut.changes,
      perWrite: counted.requests.statements / counted.requests.requests,
      events: cut.delivered,
    };
  } finally {
    if (s) {
      await unstage(s);
    }
    await proxy.close();
  }
}
