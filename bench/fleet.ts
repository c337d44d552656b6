import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Tally } from './fleet/calls';
import { FaultPlan } from './fleet/faults';
import { type Fleet, fleetUnavailable, startFleet } from './fleet/fleet';
import { makeReceiver, registerEndpoints } from './fleet/hooks';
import { jobState } from './fleet/job-state';
import { GATEWAY_ADDRESS } from './fleet/network';
import { makeCast, newestCursor } from './fleet/people';
import { Readers } from './fleet/readers';
import { failures, type FleetResult, table } from './fleet/report';
import { Subscriber, watchSilence } from './fleet/subscribers';
import {
  checkEvents,
  checkHooks,
  checkWrites,
  expectedHooks,
  loggedCursors,
  meetingsOf,
} from './fleet/verify';
import { Writers } from './fleet/writers';
import type { HookReceiver } from './lib/hook-receiver';
import { AUTH_ENV } from './run/targets';

/*
 * `npm run fleet`: the service as a fleet on one Linux machine, as root. N hosts (network
 * namespaces on a bridge) each run the built service; HAProxy balances them; a PostgreSQL primary
 * and a streaming replica serve them. Load goes through the balancer (keyed writers that retry
 * and read their own writes, readers, subscribers over WebSocket and SSE that resume from their
 * last cursor, a webhook endpoint per writer) while faults come one after another (see
 * fleet/faults.ts). At the end everything is checked against the primary: every acknowledged
 * write there once, every subscriber's events equal to its meeting's logged changes, every
 * webhook delivered once, no read that missed the caller's own write. It prints a table and exits
 * 1 on any loss. Where it cannot run (not root, no `ip`, no HAProxy, no PostgreSQL tools) it says
 * so in one line and exits 0, or 1 with --require (CI).
 */

const { values: args } = parseArgs({
  options: {
    hosts: { type: 'string', default: '3' },
    writers: { type: 'string', default: '10' },
    readers: { type: 'string', default: '4' },
    subscribers: { type: 'string', default: '150' },
    spacing: { type: 'string', default: '15' },
    require: { type: 'boolean', default: false },
    'keep-logs': { type: 'boolean', default: false },
  },
});
const size = {
  hosts: Number(args.hosts),
  writers: Number(args.writers),
  readers: Number(args.readers),
  subscribers: Number(args.subscribers),
  spacing: Number(args.spacing),
};

const log = (line: string) => console.log(`fleet: ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until every subscriber and endpoint has what the log says it must, at most `ms`. */
async function drain(check: () => Promise<boolean>, ms: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < ms && !(await check())) {
    await sleep(500);
  }
  return (performance.now() - started) / 1000;
}

async function run(fleet: Fleet, receiver: HookReceiver): Promise<FleetResult> {
  const { primaryUrl, balancerUrl } = fleet;
  const cast = await makeCast(primaryUrl, {
    writers: size.writers,
    subscribers: size.subscribers,
    extras: 500,
  });
  const from = await newestCursor(primaryUrl);
  const hooks = await registerEndpoints(balancerUrl, receiver, cast.writers);
  const subscribers = cast.subscribers.map(
    (member, i) => new Subscriber(balancerUrl, member, i % 2 === 0 ? 'websocket' : 'sse', from),
  );
  const watched = new Map(subscribers.map((s, i) => [s, cast.watched[i] as string]));
  subscribers.forEach((subscriber) => subscriber.start());
  const stopWatching = watchSilence(subscribers);
  await sleep(3_000);

  const t0 = performance.now();
  const plan = new FaultPlan(fleet, receiver, size.spacing, t0);
  const tally = new Tally(() => plan.phase);
  const writers = new Writers(balancerUrl, cast, tally);
  const readers = new Readers(balancerUrl, cast, tally);
  writers.start();
  readers.start(size.readers);
  log(
    `load started: ${size.writers} writers, ${size.readers} readers, ${subscribers.length} subscribers`,
  );
  await plan.run();
  plan.phase = 'end of load';
  await Promise.all([writers.stop(), readers.stop()]);
  const seconds = (performance.now() - t0) / 1000;
  log(`load stopped after ${seconds.toFixed(0)} s; waiting for the events and webhooks`);

  const owned = meetingsOf(cast, writers.writes);
  const all = [...new Set([...cast.watched, ...owned.flat()])];
  const complete = async () => {
    const logged = await loggedCursors(primaryUrl, all);
    const events = (['websocket', 'sse'] as const).map((t) =>
      checkEvents(subscribers, watched, logged, t),
    );
    const hooksNow = checkHooks(receiver.receipts, hooks.secrets, expectedHooks(owned, logged));
    return events.every((e) => e.missing === 0) && hooksNow.missing === 0;
  };
  const drained = await drain(complete, 90_000);
  log(`drained in ${drained.toFixed(1)} s`);
  stopWatching();
  subscribers.forEach((subscriber) => subscriber.stop());

  const logged = await loggedCursors(primaryUrl, all);
  const jobs = await jobState(primaryUrl).catch((error: unknown) => ({ error: String(error) }));
  writeDetails(subscribers, watched, logged, receiver, t0, plan, jobs);
  const killed = plan.records.find((f) => f.heldDelivery !== undefined)?.heldDelivery ?? null;
  const again = killed
    ? receiver.receipts.find((r) => String(r.headers['webhook-id']) === killed.id)
    : undefined;
  return {
    hosts: size.hosts,
    seconds,
    writes: await checkWrites(primaryUrl, writers.writes, logged),
    refused: writers.refused,
    reads: writers.reads,
    events: {
      websocket: checkEvents(subscribers, watched, logged, 'websocket'),
      sse: checkEvents(subscribers, watched, logged, 'sse'),
    },
    hooks: checkHooks(receiver.receipts, hooks.secrets, expectedHooks(owned, logged)),
    heldRedelivered: killed ? (again ? (again.at - killed.killedAt) / 1000 : Number.NaN) : null,
    faults: plan.records,
    answers: tally.table(),
    failedAnswers: tally.failures,
  };
}

let logDir = '';

/** What a failed run needs looked at, in the logs' folder: events missed, webhooks twice. */
function writeDetails(
  subscribers: readonly Subscriber[],
  watched: ReadonlyMap<Subscriber, string>,
  logged: Map<string, string[]>,
  receiver: HookReceiver,
  t0: number,
  plan: FaultPlan,
  jobs: Record<string, unknown>,
): void {
  const missed = subscribers.flatMap((subscriber, i) => {
    const got = new Set(subscriber.received);
    const missing = (logged.get(watched.get(subscriber) ?? '') ?? []).filter((c) => !got.has(c));
    return missing.length === 0 && subscriber.twice.length === 0
      ? []
      : [
          {
            i,
            transport: subscriber.transport,
            missing,
            twice: subscriber.twice,
            received: subscriber.received,
          },
        ];
  });
  const byId = new Map<string, { from: string; at: number; endpoint: number }[]>();
  for (const receipt of receiver.receipts) {
    const id = String(receipt.headers['webhook-id']);
    const at = Number(((receipt.at - t0) / 1000).toFixed(2));
    byId.set(id, [...(byId.get(id) ?? []), { from: receipt.from, at, endpoint: receipt.endpoint }]);
  }
  const twice = [...byId].filter(([, receipts]) => receipts.length > 1);
  writeFileSync(
    join(logDir, 'details.json'),
    JSON.stringify({ faults: plan.records, missed, twice, jobs }, null, 1),
  );
}

async function main(): Promise<number> {
  const unavailable = fleetUnavailable();
  if (unavailable) {
    log(`SKIPPED, not run: ${unavailable}`);
    return args.require ? 1 : 0;
  }
  logDir = mkdtempSync(join(tmpdir(), 'meetings-fleet-'));
  const receiver = makeReceiver(GATEWAY_ADDRESS);
  let fleet: Fleet | null = null;
  let failed = true;
  const interrupted = () => {
    log('interrupted: stopping everything');
    void (fleet?.close() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    log(`starting ${size.hosts} hosts, HAProxy, a primary and a replica (logs in ${logDir})`);
    fleet = await startFleet({
      hosts: size.hosts,
      logDir,
      serviceEnv: {
        ...AUTH_ENV,
        NODE_EXTRA_CA_CERTS: receiver.certFile,
        // Retries of a failed delivery come soon enough to be seen in the run.
        WEBHOOK_RETRY_SCHEDULE: '1,2,5,10,30',
        // A connection to a killed or cut host still counts for a moment when its user is back.
        SOCKETS_PER_USER: '4',
      },
    });
    await receiver.listen();
    const result = await run(fleet, receiver);
    console.log(`\n${table(result)}\n`);
    const found = failures(result);
    for (const failure of found) {
      log(`FAILED: ${failure}`);
    }
    failed = found.length > 0;
    log(failed ? 'failed' : 'passed: nothing lost, doubled or missed');
    return failed ? 1 : 0;
  } finally {
    await fleet?.close();
    await receiver.close();
    if (failed || args['keep-logs']) {
      log(`logs kept in ${logDir}`);
    } else {
      rmSync(logDir, { recursive: true, force: true });
    }
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('fleet:', error);
    process.exit(1);
  },
);
