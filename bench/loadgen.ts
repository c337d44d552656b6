import autocannon from 'autocannon';
import type { AnswerCheck, LoadJob, LoadMessage, LoadPlan, LoadResult } from './lib/protocol';

/**
 * The load generator, run by the harness as a child process (so that it does not share an event
 * loop with the harness): for each job, autocannon against one target for a warm-up, then for the
 * measured phase, reporting each second's progress and finally the measured latencies.
 */

function send(message: LoadMessage): void {
  process.send?.(message);
}

interface WriteContext {
  meetingId?: string;
  inviteeToken?: string;
}

/** Answers that failed their request's check, in the phase under way. */
const checked = { wrong: 0 };

/** Whether an answer passes its request's check (status first: the rest only when it is right). */
function passes(check: AnswerCheck, status: number, body: string, etag: unknown): boolean {
  return (
    status !== check.status ||
    ((check.etag === undefined || etag === check.etag) &&
      (check.length === undefined || body.length === check.length))
  );
}

/** The ETag header among autocannon's headers (their names as the server wrote them). */
function etagOf(headers: Record<string, unknown>): unknown {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'etag') {
      return value;
    }
  }
  return undefined;
}

/** autocannon's request list for a plan (the write plan keeps its counter across phases). */
function requestsFor(plan: LoadPlan): autocannon.Request[] {
  if (plan.kind === 'cycle') {
    return plan.requests.map((r) => {
      const check = r.expect;
      return {
        method: r.method,
        path: r.path,
        headers: r.headers,
        ...(r.body === undefined ? {} : { body: r.body }),
        // autocannon reads every body anyway; this only compares its length and a header.
        ...(check
          ? {
              onResponse: (status: number, body: string, _context: unknown, headers: unknown) => {
                if (!passes(check, status, body, etagOf(headers as Record<string, unknown>))) {
                  checked.wrong += 1;
                }
              },
            }
          : {}),
      };
    });
  }
  const { meetingIds, invitees, ownerToken } = plan;
  let next = 0;
  return [
    {
      method: 'POST',
      setupRequest: (request, context) => {
        const i = next;
        next += 1;
        const meetingId = meetingIds[i % meetingIds.length] as string;
        const invitee = invitees[Math.floor(i / meetingIds.length) % invitees.length] as {
          id: string;
          token: string;
        };
        const ctx = context as WriteContext;
        ctx.meetingId = meetingId;
        ctx.inviteeToken = invitee.token;
        return {
          ...request,
          path: `/api/v1/meeting/${meetingId}/participants/add`,
          headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ user_id: invitee.id }),
        };
      },
    },
    {
      method: 'POST',
      setupRequest: (request, context) => {
        const ctx = context as WriteContext;
        return {
          ...request,
          path: `/api/v1/meeting/${ctx.meetingId as string}/approve`,
          headers: { authorization: `Bearer ${ctx.inviteeToken as string}` },
          body: undefined,
        };
      },
    },
  ];
}

class Recorder {
  latencies = new Float64Array(1 << 16);
  count = 0;
  ok = 0;
  statusCounts: Record<string, number> = {};

  /** `expected`: the statuses answers may have (else any 2xx is right). */
  constructor(private readonly expected: ReadonlySet<number> | undefined) {}

  record(status: number, ms: number): void {
    if (this.count === this.latencies.length) {
      const grown = new Float64Array(this.latencies.length * 2);
      grown.set(this.latencies);
      this.latencies = grown;
    }
    this.latencies[this.count] = ms;
    this.count += 1;
    if (this.expected === undefined ? status >= 200 && status < 300 : this.expected.has(status)) {
      this.ok += 1;
    }
    const key = String(status);
    this.statusCounts[key] = (this.statusCounts[key] ?? 0) + 1;
  }
}

/**
 * The statuses a plan's requests expect, if they expect one each (a polling client's cycle mixes
 * 304 and 200); undefined: any 2xx is right.
 */
function expectedStatuses(plan: LoadPlan): ReadonlySet<number> | undefined {
  if (plan.kind !== 'cycle' || plan.requests.some((request) => request.expect === undefined)) {
    return undefined;
  }
  return new Set(plan.requests.map((request) => request.expect?.status ?? 200));
}

/** The one status a plan's requests expect, if they all expect the same. */
function expectedStatus(plan: LoadPlan): number | undefined {
  const statuses = expectedStatuses(plan);
  return statuses?.size === 1 ? [...statuses][0] : undefined;
}

function runPhase(
  job: LoadJob,
  requests: autocannon.Request[],
  phase: 'warmup' | 'measure',
  seconds: number,
): Promise<LoadResult> {
  const expected = expectedStatus(job.plan);
  const recorder = new Recorder(expectedStatuses(job.plan));
  checked.wrong = 0;
  send({ type: 'phase', phase });
  return new Promise((resolve, reject) => {
    let second = 0;
    let lastCount = 0;
    const started = process.hrtime.bigint();
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        duration: seconds,
        pipelining: 1,
        timeout: 30,
        requests,
      },
      (error, result) => {
        if (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        resolve({
          responses: recorder.count,
          ok: recorder.ok,
          statusCounts: recorder.statusCounts,
          errors: result.errors,
          timeouts: result.timeouts,
          seconds: Number(process.hrtime.bigint() - started) / 1e9,
          latencies: recorder.latencies.slice(0, recorder.count),
          ...(expected === undefined ? {} : { expectedStatus: expected }),
          mismatches: checked.wrong,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      recorder.record(statusCode, responseTime);
    });
    instance.on('tick', () => {
      second += 1;
      send({ type: 'tick', phase, second, responses: recorder.count - lastCount });
      lastCount = recorder.count;
    });
  });
}

async function run(job: LoadJob): Promise<void> {
  const requests = requestsFor(job.plan);
  if (job.warmupSeconds > 0) {
    await runPhase(job, requests, 'warmup', job.warmupSeconds);
  }
  const result = await runPhase(job, requests, 'measure', job.durationSeconds);
  send({ type: 'done', result });
}

// One job at a time, as long as the harness keeps the channel open; gone with the harness.
process.on('disconnect', () => process.exit(0));
process.on('message', (job: LoadJob) => {
  run(job).catch((error: unknown) => {
    send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  });
});
