import { readFixtures } from '../lib/db';
import { countWork, StatementProxy } from '../lib/statement-proxy';
import {
  changesSoFar,
  cleanupWebhooks,
  setUp,
  stage,
  type Stage,
  unstage,
  WEBHOOKS,
  writeSteadily,
} from './webhook-setup';

// The webhook scenario's SQL statements per delivery: the work outside requests has no request
// log line to count it, so the service talks to PostgreSQL through the counting proxy.

/** SQL statements per delivery, from a run behind the statement-counting proxy. */
export interface WebhookStatements {
  /** Outside requests and the event listener, less the idle rate: dispatch, attempts, queue. */
  perDelivery: number;
  /** BEGIN, COMMIT and the like outside the listener, per delivery (the writes' included). */
  transactionControlPerDelivery: number;
  /** The writes' own statements per request (their request log lines). */
  perWrite: number;
  /** The event listener's reads of the change log, per change. */
  listenerPerChange: number;
  /** What the service sends while nothing happens (the job queue's polls), per second. */
  idlePerSecond: number;
  deliveries: number;
}

/**
 * The statement-counting run: the service (LOG_LEVEL=info) talks to PostgreSQL through the
 * proxy; after the warm-up, its idle rate is read, then pairs are written at a modest rate and
 * their deliveries awaited. Statements outside the requests (their log lines) and the listener,
 * less the idle rate, divided by the deliveries.
 */
export async function countWebhookStatements(
  dbUrl: string,
  build: { root?: string; name?: string } = {},
): Promise<WebhookStatements> {
  const fixtures = await readFixtures(dbUrl, 1_000);
  const setup = await setUp(dbUrl, fixtures, WEBHOOKS.warmupPairs + WEBHOOKS.countedPairs);
  const proxy = await StatementProxy.start(dbUrl);
  let s: Stage | null = null;
  try {
    const staged = await stage(proxy.url, setup, { logLevel: 'info', ...build });
    s = staged;
    const counted = await countWork(proxy, staged.service.lines, async () => {
      const changes0 = await changesSoFar(setup);
      const delivered0 = staged.deliveries.distinct;
      await writeSteadily(staged.service, setup, staged.acks, WEBHOOKS.countedRate, {
        pairs: WEBHOOKS.countedPairs,
      });
      const changes = (await changesSoFar(setup)) - changes0;
      await staged.deliveries.reached(delivered0 + changes * WEBHOOKS.endpointOwners.length);
      // The last attempt's outcome is recorded just after its answer: a moment for it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      return { changes, deliveries: staged.deliveries.distinct - delivered0 };
    });
    const { changes, deliveries } = counted.result;
    return {
      perDelivery: counted.background / deliveries,
      transactionControlPerDelivery: counted.transactionControl / deliveries,
      perWrite: counted.requests.statements / counted.requests.requests,
      listenerPerChange: counted.listener / changes,
      idlePerSecond: counted.idlePerSecond,
      deliveries,
    };
  } finally {
    if (s) {
      await unstage(s);
    }
    await proxy.close();
    await cleanupWebhooks(dbUrl);
  }
}
