import { readFixtures } from '../lib/db';
import { costMeter, sampleRss } from '../lib/processes';
import type { Cost } from '../lib/processes';
import { quantile } from '../lib/stats';
import { fmt, status } from './progress';
import { type Body, checkReceipts, type DeliveryCheck, medianGap } from './webhook-receipts';
import {
  changesSoFar,
  cleanupWebhooks,
  loggedCursors,
  setUp,
  stage,
  unstage,
  WEBHOOKS,
  writePair,
  writeSteadily,
} from './webhook-setup';

/*
 * The webhook-deliveries scenario: three users with four endpoints (the meetings' owner two, each
 * of its two guests one) at an HTTPS receiver on 127.0.0.1, and meetings (made by SQL, so their
 * making sends nothing) that a writer changes through REST: the owner adds a generated user, who
 * approves, so each pair of writes makes three changes (added, answered, confirmed), each
 * delivered to all four endpoints. Measured on a service of its own:
 *   - a burst: pairs written as fast as four writers go; deliveries per second until the last
 *     delivery is in, with the service's and PostgreSQL's CPU per delivery;
 *   - a steady rate of half that: the latency from each write's response to the receipt of its
 *     deliveries (and from the change's timestamp in the body);
 *   - every receipt verified (Standard Webhooks signature) and counted by webhook-id and by
 *     endpoint and change: each change's deliveries must arrive once, none missing;
 *   - on another start behind a statement-counting proxy, the SQL statements per delivery.
 */

/** One timed run: the burst, then the steady rate; with its receipts checked. */
export interface WebhookRun {
  burst: {
    pairs: number;
    deliveries: number;
    seconds: number;
    perSecond: number;
    cost: Cost;
    /** Whether every delivery arrived within DRAIN_MS of the last write. */
    drained: boolean;
    /**
     * The median time between two receipts at the same endpoint (an endpoint's attempts run one
     * at a time): what one endpoint's queue allowed.
     */
    endpointGapMs: number;
  };
  steady: {
    pairsPerSecond: number;
    pairs: number;
    deliveries: number;
    /** From the write's response to the receipt, ms; each delivery's. */
    latencies: Float64Array;
    /** From the change's `timestamp` (its transaction's time) to the receipt, ms. */
    sinceTimestamp: Float64Array;
  };
  check: DeliveryCheck;
  /** The service's largest RSS over the run (bytes). */
  peakRss: number;
}

/** Pairs of the burst, and seconds at the steady rate. */
type Size = { burstPairs: number; steadySeconds: number };

/** The burst and the steady rate on a service started here (of `root`, if given). */
export async function timeWebhooks(
  dbUrl: string,
  size: Size,
  build: { root?: string; name?: string } = {},
): Promise<WebhookRun> {
  const fixtures = await readFixtures(dbUrl, 1_000);
  const pairs = WEBHOOKS.warmupPairs + size.burstPairs + Math.ceil(size.steadySeconds * 400);
  const setup = await setUp(dbUrl, fixtures, pairs);
  const s = await stage(dbUrl, setup, { logLevel: 'warn', ...build });
  const rss = sampleRss(s.service.child.pid as number);
  try {
    // The burst: writers as fast as they go; until the last of their deliveries is in.
    const before = s.deliveries.distinct;
    const meter = costMeter(s.service.child.pid as number);
    const started = performance.now();
    let written = 0;
    const writer = async (): Promise<void> => {
      while (written < size.burstPairs) {
        written += 1;
        await writePair(s.service, setup, s.acks);
      }
    };
    await Promise.all(Array.from({ length: WEBHOOKS.writers }, writer));
    const burstTotal = WEBHOOKS.endpointOwners.length * (await changesSoFar(setup));
    status(`webhook-deliveries · burst: ${size.burstPairs} pairs written, draining…`);
    const drainedAt = await s.deliveries.reached(burstTotal);
    const cost = meter.stop();
    const deliveries = burstTotal - before;
    const seconds = ((drainedAt ?? performance.now()) - started) / 1000;
    const perSecond = deliveries / seconds;
    const endpointGapMs = medianGap(s.receiver.receipts, started, drainedAt ?? performance.now());
    status(`webhook-deliveries · burst: ${fmt(perSecond)} deliveries/s`, true);

    // The steady rate: half the burst's deliveries a second, as pairs (three changes each).
    const perPair = deliveries / size.burstPairs;
    const pairsPerSecond = Math.max(0.5, (0.5 * perSecond) / perPair);
    const steadyFrom = setup.next;
    status(`webhook-deliveries · steady: ${fmt(pairsPerSecond, 1)} pairs/s…`);
    const steadyPairs = await writeSteadily(s.service, setup, s.acks, pairsPerSecond, {
      seconds: size.steadySeconds,
    });
    const total = WEBHOOKS.endpointOwners.length * (await changesSoFar(setup));
    await s.deliveries.reached(total);
    const { check, bodies } = checkReceipts(
      s.receiver.receipts,
      s.secrets,
      await loggedCursors(setup),
    );
    const steadyMeetings = new Set(setup.meetings.slice(steadyFrom, setup.next));
    const latencies: number[] = [];
    const sinceTimestamp: number[] = [];
    s.receiver.receipts.forEach((receipt, i) => {
      const body = bodies[i] as Body;
      if (!steadyMeetings.has(body.data.meetingId)) {
        return;
      }
      const step = body.type === 'meeting.participant_added' ? 'add' : 'approve';
      const ack = s.acks.get(`${body.data.meetingId} ${step}`);
      if (ack !== undefined) {
        latencies.push(receipt.at - ack);
      }
      sinceTimestamp.push(receipt.wallAt - Date.parse(body.timestamp));
    });
    status(
      `webhook-deliveries · steady: p50 ${fmt(quantile(Float64Array.from(latencies).sort(), 0.5), 1)} ms; ` +
        `${check.missing} missing, ${check.duplicates} duplicated, ${check.badSignatures} bad signatures`,
      true,
    );
    return {
      burst: {
        pairs: size.burstPairs,
        deliveries,
        seconds,
        perSecond,
        cost,
        drained: drainedAt !== null,
        endpointGapMs,
      },
      steady: {
        pairsPerSecond,
        pairs: steadyPairs,
        deliveries: latencies.length,
        latencies: Float64Array.from(latencies).sort(),
        sinceTimestamp: Float64Array.from(sinceTimestamp).sort(),
      },
      check,
      peakRss: rss.stop(),
    };
  } finally {
    rss.stop();
    await unstage(s);
    await cleanupWebhooks(dbUrl);
  }
}
