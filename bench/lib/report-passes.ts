import type { ResumePhase, ResumeRun } from '../run/resume-pass';
import type { ResumeStatements } from '../run/resume-statements';
import type { WebhookRun } from '../run/webhook-pass';
import type { WebhookStatements } from '../run/webhook-statements';
import { int, mib, ms } from './format';
import { quantile } from './stats';

// The report's sections of the scenarios measured by passes of their own: webhook-deliveries and
// resume (their rows in the main tables come from the same runs).

/** p50, p99 and the largest of sorted values (ms). */
export interface Spread3 {
  p50: number;
  p99: number;
  max: number;
}

const spread = (sorted: Float64Array): Spread3 => ({
  p50: quantile(sorted, 0.5),
  p99: quantile(sorted, 0.99),
  max: sorted[sorted.length - 1] ?? Number.NaN,
});

/** The webhook scenario's numbers as the report keeps them (no per-delivery arrays). */
export interface WebhookSection {
  endpoints: number;
  owners: number;
  burst: WebhookRun['burst'];
  steady: {
    pairsPerSecond: number;
    pairs: number;
    deliveries: number;
    latency: Spread3;
    sinceTimestamp: Spread3;
  };
  check: WebhookRun['check'];
  peakRss: number;
  statements: WebhookStatements;
}

export function webhookSection(
  run: WebhookRun,
  statements: WebhookStatements,
  endpoints: { count: number; owners: number },
): WebhookSection {
  const { latencies, sinceTimestamp, ...steady } = run.steady;
  return {
    endpoints: endpoints.count,
    owners: endpoints.owners,
    burst: run.burst,
    steady: { ...steady, latency: spread(latencies), sinceTimestamp: spread(sinceTimestamp) },
    check: run.check,
    peakRss: run.peakRss,
    statements,
  };
}

/** One resume phase as the report keeps it. */
export type PhaseSection = Omit<ResumePhase, 'caughtUp'> & { caughtUp: Spread3 };

export interface ResumeSection {
  subscribers: number;
  meetings: number;
  connectSeconds: number;
  listenerCut: PhaseSection;
  clientsResume: PhaseSection;
  peakRss: number;
  statements: ResumeStatements;
}

const phaseSection = ({ caughtUp, ...rest }: ResumePhase): PhaseSection => ({
  ...rest,
  caughtUp: spread(caughtUp),
});

export function resumeSection(run: ResumeRun, statements: ResumeStatements): ResumeSection {
  return {
    subscribers: run.subscribers,
    meetings: run.meetings,
    connectSeconds: run.connectSeconds,
    listenerCut: phaseSection(run.listenerCut),
    clientsResume: phaseSection(run.clientsResume),
    peakRss: run.peakRss,
    statements,
  };
}

const one = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');
const perUnit = (total: number, units: number): string =>
  ms(units > 0 ? total / units : Number.NaN);

export function webhooksMarkdown(section: WebhookSection | { skipped: string }): string[] {
  const out = ['## Webhook deliveries', ''];
  if ('skipped' in section) {
    out.push(`Not measured: ${section.skipped}.`);
    return out;
  }
  const { burst, steady, check, statements: st } = section;
  const perPair = burst.pairs > 0 ? burst.deliveries / burst.pairs : Number.NaN;
  out.push(
    `${section.endpoints} endpoints of ${section.owners} users (bench.hooks.owner two, each of the ` +
      'two guests of its meetings one), subscribed to every event type, at an HTTPS receiver on ' +
      '127.0.0.1 (a self-signed certificate the service trusts through NODE_EXTRA_CA_CERTS; ' +
      '`WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`), on a service started for the scenario. The writes: ' +
      'the owner adds a generated user to one of its meetings (made by SQL, so their making sends ' +
      `nothing) and that user approves, through REST; each pair makes ${one(perPair)} deliveries ` +
      '(added, answered, confirmed, to every endpoint).',
    '',
    '| phase | pairs | deliveries | seconds | deliveries/s | p50 ms | p99 ms | max ms | Node CPU ms/delivery | PostgreSQL CPU ms/delivery | other processes, cores |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| burst (4 writers, as fast as they go) | ${int(burst.pairs)} | ${int(burst.deliveries)} | ` +
      `${one(burst.seconds)} | **${int(burst.perSecond)}** | – | – | – | ` +
      `${perUnit(burst.cost.targetCpuMs, burst.deliveries)} | ` +
      `${perUnit(burst.cost.databaseCpuMs, burst.deliveries)} | ${burst.cost.contention.toFixed(2)} |`,
    `| steady (${one(steady.pairsPerSecond)} pairs/s, half the burst's deliveries/s) | ` +
      `${int(steady.pairs)} | ${int(steady.deliveries)} | – | – | **${ms(steady.latency.p50)}** | ` +
      `**${ms(steady.latency.p99)}** | ${ms(steady.latency.max)} | – | – | – |`,
    '',
    "Deliveries/s: from the burst's first write to its last delivery received; meanwhile the " +
      `service kept ${(burst.cost.targetCpuMs / 1000 / burst.seconds).toFixed(2)} cores busy and ` +
      `PostgreSQL ${(burst.cost.databaseCpuMs / 1000 / burst.seconds).toFixed(2)}, and receipts at ` +
      `one endpoint (its attempts in lanes, each one at a time) came a median ${ms(burst.endpointGapMs)} ms ` +
      'apart. Latency: from the ' +
      "write's response reaching the writer to the delivery's body being in at the receiver; from " +
      "the change's `timestamp` in the body (its transaction's time) instead: p50 " +
      `${ms(steady.sinceTimestamp.p50)} ms, p99 ${ms(steady.sinceTimestamp.p99)} ms.`,
    '',
    `Every receipt checked: ${int(check.received)} received of ${int(check.expected)} deliveries ` +
      'the logged changes make (changes × endpoints); **' +
      `${check.missing} missing, ${check.duplicates} received twice` +
      `** (by webhook-id, and by endpoint and change), ${check.badSignatures} whose signature ` +
      `the endpoint's secret does not verify (standardwebhooks), ${check.outOfOrder} out of commit ` +
      `order in their endpoint's lane${burst.drained ? '' : '; the burst did not drain within 3 minutes'}. ` +
      `Peak RSS of the service: ${mib(section.peakRss)}.`,
    '',
    `SQL statements, from another start behind the statement-counting proxy ` +
      `(${int(st.deliveries)} deliveries at 10 pairs/s): **${one(st.perDelivery)} per delivery** ` +
      'outside requests and the event listener (the dispatch, the attempt, the job queue; its ' +
      `idle ${one(st.idlePerSecond)}/s subtracted), plus ${one(st.transactionControlPerDelivery)} ` +
      `BEGIN/COMMIT/… (the writes' included); the writes themselves ${one(st.perWrite)} per ` +
      `request; the event listener ${st.listenerPerChange.toFixed(2)} per change.`,
  );
  return out;
}

function phaseRow(label: string, p: PhaseSection): string {
  const closes = Object.entries(p.closes)
    .map(([code, n]) => `${n} × ${code}`)
    .join(', ');
  return (
    `| ${label} | ${int(p.changes)} | ${int(p.delivered)} of ${int(p.expected)} | **${p.missing}** | ` +
    `${p.duplicates} | **${Number.isFinite(p.seconds) ? one(p.seconds) : '– (not all)'}** | ` +
    `${ms(p.caughtUp.p50)} | ${ms(p.caughtUp.p99)} | ${perUnit(p.cost.targetCpuMs, p.delivered)} | ` +
    `${perUnit(p.cost.databaseCpuMs, p.delivered)} | ${closes || 'none'} | ${p.cost.contention.toFixed(2)} |`
  );
}

export function resumeMarkdown(section: ResumeSection | { skipped: string }): string[] {
  const out = ['## Resume: subscribers after a listener cut, and resuming with their cursors', ''];
  if ('skipped' in section) {
    out.push(`Not measured: ${section.skipped}.`);
    return out;
  }
  const st = section.statements;
  out.push(
    `${int(section.subscribers)} generated users each hold a WebSocket (graphql-ws) with a ` +
      '`myMeetingEvents(after:)` subscription to one instance started for the scenario ' +
      `(sockets opened in ${one(section.connectSeconds)} s); they are the guests of ` +
      `${section.meetings} meetings of bench.resume.owner (made by SQL), ` +
      `${section.subscribers / section.meetings} each. Each keeps the cursor of the last event it ` +
      'received and, when the service closes its socket, opens another with `after:` that ' +
      "cursor. The changes: `updateMeeting` of each meeting, four writers. Every phase's events " +
      "come from the change log, and each subscriber must receive each of its meeting's once.",
    '',
    "- **listener cut**: the service's event-listener connection is terminated on the server " +
      '(`pg_terminate_backend`), the changes are written at once; timed from the cut.',
    '- **clients resume**: every subscriber closes its socket, the changes are written meanwhile, ' +
      'then all reconnect at once with their cursors; timed from the reconnect.',
    '',
    '| phase | changes | events delivered | missed (5 min) | twice | all caught up, s | p50 ms per subscriber | p99 ms per subscriber | Node CPU ms/event | PostgreSQL CPU ms/event | sockets the service closed | other processes, cores |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |',
    phaseRow('listener cut', section.listenerCut),
    phaseRow('clients resume', section.clientsResume),
    '',
    `Out of order: ${section.listenerCut.outOfOrder + section.clientsResume.outOfOrder}; events ` +
      `of another meeting or kind: ${section.listenerCut.wrong + section.clientsResume.wrong}. ` +
      `Peak RSS of the service: ${mib(section.peakRss)}.`,
    '',
    `SQL statements, from another start behind the statement-counting proxy (the listener cut, ` +
      `one change of each of ten meetings, ${int(st.events)} events): **${one(st.perEvent)} per event ` +
      `delivered** outside requests and the event listener, plus ` +
      `${one(st.transactionControlPerEvent)} BEGIN/COMMIT/…; the writes ${one(st.perWrite)} per ` +
      `request; the event listener ${st.listenerPerChange.toFixed(2)} per change.`,
  );
  return out;
}
