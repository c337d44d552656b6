import {
  besidesListener,
  countedBetween,
  listenerStatements,
  loggedRequests,
  StatementProxy,
} from '../lib/statement-proxy';
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

const IDLE_MS = 3_000;

/** The listener-cut phase once (a change of ten meetings) behind the proxy, LOG_LEVEL=info. */
export async function countResumeStatements(
  dbUrl: string,
  build: { root?: string; name?: string } = {},
): Promise<ResumeStatements> {
  const proxy = await StatementProxy.start(dbUrl);
  let s: Stage | null = null;
  try {
    s = await stage(dbUrl, proxy.url, { logLevel: 'info', ...build });
    const idle0 = proxy.snapshot();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleRate =
      besidesListener(countedBetween(idle0, proxy.snapshot())).statements / (IDLE_MS / 1000);
    const before = proxy.snapshot();
    const mark = s.service.lines.length;
    const started = performance.now();
    // Every subscription reads every change, so per event delivered the count is the same
    // whatever the number of changes: a change of ten meetings is enough.
    const cut = await phase(s, 'counted', listenerCut(s), { perMeeting: 1, meetings: 10 });
    const seconds = (performance.now() - started) / 1000;
    const counted = countedBetween(before, proxy.snapshot());
    const requests = loggedRequests(s.service.lines.slice(mark));
    const all = besidesListener(counted);
    return {
      perEvent: (all.statements - requests.statements - idleRate * seconds) / cut.delivered,
      transactionControlPerEvent: all.transactionControl / cut.delivered,
      listenerPerChange: listenerStatements(counted) / cut.changes,
      perWrite: requests.statements / requests.requests,
      events: cut.delivered,
    };
  } finally {
    if (s) {
      await unstage(s);
    }
    await proxy.close();
  }
}
