import type { LoadResult } from '../lib/protocol';
import type { PassKey } from '../lib/scenarios';
import { summarize, type Summary } from '../lib/stats';
import { log } from './progress';
import { type ResumeRun, timeResume } from './resume-pass';
import { RESUME } from './resume-setup';
import { countResumeStatements, type ResumeStatements } from './resume-statements';
import { timeWebhooks, type WebhookRun } from './webhook-pass';
import { WEBHOOKS } from './webhook-setup';
import { countWebhookStatements, type WebhookStatements } from './webhook-statements';

// The scenarios measured by passes of their own (webhook-deliveries, resume), as the full run
// and the A/B run take them: a timed run's numbers in the shape of a load run (so the tables,
// summaries and B ÷ A treat them as any scenario), and a counting run's statements.

/** Which build a pass starts: the working tree's, or (--against) another worktree's. */
export interface PassBuild {
  root?: string;
  name?: string;
}

/** The details of a pass's timed run, for its section of the report. */
export type PassDetails =
  | { key: 'webhook-deliveries'; run: WebhookRun }
  | { key: 'resume'; run: ResumeRun };

/** A timed run: its numbers as a load run's, what went wrong, its details. */
export interface PassOutcome {
  numbers: LoadResult;
  /** What its checks found wrong, by what (none: empty). */
  failures: Record<string, number>;
  peakRss: number;
  details: PassDetails;
}

/** A counting run's statements per unit (delivery, event), with what else it counted. */
export interface PassStatements {
  perUnit: number;
  detail: string;
  raw: WebhookStatements | ResumeStatements;
}

const nonZero = (counts: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));

/**
 * Webhooks: the burst's deliveries per second and CPU per delivery; the latencies are the
 * steady rate's (write's response to receipt).
 */
function webhookOutcome(run: WebhookRun): PassOutcome {
  const { burst, steady, check } = run;
  return {
    numbers: {
      responses: burst.deliveries,
      ok: burst.deliveries,
      statusCounts: {},
      errors: 0,
      timeouts: 0,
      seconds: burst.seconds,
      latencies: steady.latencies,
      targetCpuMs: burst.cost.targetCpuMs,
      databaseCpuMs: burst.cost.databaseCpuMs,
      contention: burst.cost.contention,
    },
    failures: nonZero({
      missing: check.missing,
      'received twice': check.duplicates,
      'bad signature': check.badSignatures,
      'out of order': check.outOfOrder,
      'burst not drained': burst.drained ? 0 : 1,
    }),
    peakRss: run.peakRss,
    details: { key: 'webhook-deliveries', run },
  };
}

/**
 * Resume: the listener cut's events delivered per second until all caught up, CPU per event
 * delivered; the latencies are each subscriber's time until caught up.
 */
function resumeOutcome(run: ResumeRun): PassOutcome {
  const cut = run.listenerCut;
  const back = run.clientsResume;
  const seconds = Number.isFinite(cut.seconds) ? cut.seconds : RESUME.catchUpMs / 1000;
  return {
    numbers: {
      responses: cut.delivered,
      ok: cut.delivered,
      statusCounts: {},
      errors: 0,
      timeouts: 0,
      seconds,
      latencies: cut.caughtUp,
      targetCpuMs: cut.cost.targetCpuMs,
      databaseCpuMs: cut.cost.databaseCpuMs,
      contention: cut.cost.contention,
    },
    failures: nonZero({
      missed: cut.missing + back.missing,
      'received twice': cut.duplicates + back.duplicates,
      'out of order': cut.outOfOrder + back.outOfOrder,
      'wrong event': cut.wrong + back.wrong,
    }),
    peakRss: run.peakRss,
    details: { key: 'resume', run },
  };
}

/** One timed run of a pass's scenario on `build`. */
export async function timePass(
  key: PassKey,
  dbUrl: string,
  quick: boolean,
  build: PassBuild = {},
): Promise<PassOutcome> {
  if (key === 'webhook-deliveries') {
    return webhookOutcome(
      await timeWebhooks(
        dbUrl,
        {
          burstPairs: quick ? WEBHOOKS.burstPairs.quick : WEBHOOKS.burstPairs.full,
          steadySeconds: quick ? WEBHOOKS.steadySeconds.quick : WEBHOOKS.steadySeconds.full,
        },
        build,
      ),
    );
  }
  return resumeOutcome(await timeResume(dbUrl, RESUME.changesPerMeeting, build));
}

const one = (n: number): string => n.toFixed(1);

/** The statements of a pass's scenario on `build`, from a start behind the counting proxy. */
export async function countPass(
  key: PassKey,
  dbUrl: string,
  build: PassBuild = {},
): Promise<PassStatements> {
  log(`${key}: counting SQL statements (the service behind the counting proxy)…`);
  if (key === 'webhook-deliveries') {
    const s = await countWebhookStatements(dbUrl, build);
    return {
      perUnit: s.perDelivery,
      detail:
        `per delivery, outside requests and the listener (dispatch, attempt, job queue; its idle ` +
        `${one(s.idlePerSecond)}/s subtracted), + ${one(s.transactionControlPerDelivery)} ` +
        `BEGIN/COMMIT/… (the writes' included); the writes ${one(s.perWrite)} per request; the ` +
        `event listener ${s.listenerPerChange.toFixed(2)} per change`,
      raw: s,
    };
  }
  const s = await countResumeStatements(dbUrl, build);
  return {
    perUnit: s.perEvent,
    detail:
      `per event delivered, outside requests and the listener, + ` +
      `${one(s.transactionControlPerEvent)} BEGIN/COMMIT/…; the writes ${one(s.perWrite)} per ` +
      `request; the event listener ${s.listenerPerChange.toFixed(2)} per change`,
    raw: s,
  };
}

/** The outcomes of a pass's runs as a summary, with its checks' failures among the failures. */
export function passSummary(outcomes: readonly PassOutcome[]): Summary {
  const summary = summarize(
    outcomes.map((o) => o.numbers),
    Math.max(0, ...outcomes.map((o) => o.peakRss)),
  );
  for (const outcome of outcomes) {
    for (const [what, n] of Object.entries(outcome.failures)) {
      summary.failures[what] = (summary.failures[what] ?? 0) + n;
    }
  }
  return summary;
}
