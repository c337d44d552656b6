import { createWriteMeetings, meetingState } from '../lib/db';
import { type Answer, firstDifference, send } from '../lib/http';
import type { Server } from '../lib/processes';
import type { PlannedRequest } from '../lib/protocol';
import { addRequest, approveRequest, readRequests, type ScenarioKey } from '../lib/scenarios';
import type { BenchContext } from './prepare';

// The equality pass: both targets answer the same bytes; SQL statements per request.

/** The same body with the values of the given top-level fields replaced by placeholders. */
function masked(body: string, fields: Readonly<Record<string, string>>): string {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return body;
  }
  let text = body;
  for (const [field, placeholder] of Object.entries(fields)) {
    const value = parsed[field];
    if (typeof value === 'string') {
      text = text.split(JSON.stringify(value)).join(`"<${placeholder}>"`);
    }
  }
  return text;
}

export interface Statements {
  service: number;
  baseline: number;
  detail?: string;
}

async function baselineStats(baseline: Server): Promise<{ requests: number; statements: number }> {
  return (await (await fetch(`${baseline.url}/__stats`)).json()) as {
    requests: number;
    statements: number;
  };
}

/** `sqlStatements` of the request log line of request `reqId` (waits for it a little). */
async function loggedStatements(service: Server, mark: number, reqId: string): Promise<number> {
  for (let waited = 0; waited < 1000; waited += 10) {
    for (const line of service.lines.slice(mark)) {
      if (line.includes('"sqlStatements"')) {
        const entry = JSON.parse(line) as { reqId?: string; sqlStatements?: number };
        if (entry.reqId === reqId && typeof entry.sqlStatements === 'number') {
          return entry.sqlStatements;
        }
      }
    }
    await new Promise((done) => setTimeout(done, 10));
  }
  return Number.NaN;
}

interface Exchange {
  service: Answer;
  baseline: Answer;
  /** SQL statements each side spent on the request (NaN for the service without info logs). */
  sql: { service: number; baseline: number };
}

let exchanges = 0;

/** One request to each target, one after the other, counting the statements each one sent. */
async function exchange(
  service: Server,
  baseline: Server,
  toService: PlannedRequest,
  toBaseline: PlannedRequest,
  countStatements: boolean,
): Promise<Exchange> {
  const mark = service.lines.length;
  exchanges += 1;
  const reqId = `bench-${exchanges}`;
  const a = await send(service.url, {
    ...toService,
    headers: { ...toService.headers, 'x-request-id': reqId },
  });
  const serviceSql = countStatements ? await loggedStatements(service, mark, reqId) : Number.NaN;
  const before = await baselineStats(baseline);
  const b = await send(baseline.url, toBaseline);
  const after = await baselineStats(baseline);
  return {
    service: a,
    baseline: b,
    sql: { service: serviceSql, baseline: after.statements - before.statements },
  };
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

interface CheckOutcome {
  statements: Map<ScenarioKey, Statements>;
  /** Matches of each search text (the `count` the service answered). */
  searchCounts: Map<string, number>;
}

/**
 * Every scenario's requests against both targets: same status, same bytes (writes: the same
 * bytes but for the new participant's id, meeting id and timestamps, and the same stored state).
 * With the service logging requests (LOG_LEVEL=info), also counts SQL statements per request.
 */
export async function checkEquality(
  ctx: BenchContext,
  service: Server,
  baseline: Server,
  scenarios: readonly ScenarioKey[],
  countStatements: boolean,
): Promise<CheckOutcome> {
  const problems: string[] = [];
  const statements = new Map<ScenarioKey, Statements>();
  const searchCounts = new Map<string, number>();
  const compare = (label: string, a: Answer, b: Answer): void => {
    if (a.status !== b.status || a.body !== b.body) {
      problems.push(
        `${label}: service ${a.status}, baseline ${b.status}; ${firstDifference(a.body, b.body)}`,
      );
    }
  };
  for (const key of scenarios) {
    if (key === 'writes') {
      const [m1, m2] = (await createWriteMeetings(ctx.dbUrl, ctx.fixtures.writerId, 2)) as [
        string,
        string,
      ];
      const invitee = ctx.invitees[0] as { id: string; token: string };
      const volatile = {
        id: 'id',
        meeting_id: 'meeting',
        created_at: 'timestamp',
        updated_at: 'timestamp',
      };
      const sql = new Map<string, Exchange['sql']>();
      for (const step of ['add', 'add again', 'approve', 'approve again']) {
        const request = (meetingId: string): PlannedRequest =>
          step.startsWith('add')
            ? addRequest(ctx.writerToken, meetingId, invitee.id)
            : approveRequest(invitee.token, meetingId);
        const x = await exchange(service, baseline, request(m1), request(m2), countStatements);
        sql.set(step, x.sql);
        compare(
          `writes: ${step}`,
          { status: x.service.status, body: masked(x.service.body, volatile) },
          { status: x.baseline.status, body: masked(x.baseline.body, volatile) },
        );
        if ((step === 'add' || step === 'approve') && x.service.status !== 200) {
          problems.push(
            `writes: the service refused to ${step} (${x.service.status} ${x.service.body})`,
          );
        }
      }
      const [s1, s2] = await Promise.all([
        meetingState(ctx.dbUrl, m1),
        meetingState(ctx.dbUrl, m2),
      ]);
      const state = (s: typeof s1): string =>
        `${s.status} [${s.participants.map((p) => p.split(':')[1]).join(', ')}]`;
      if (state(s1) !== state(s2)) {
        problems.push(`writes: stored state differs: service ${state(s1)}, baseline ${state(s2)}`);
      }
      const add = sql.get('add') as Exchange['sql'];
      const approve = sql.get('approve') as Exchange['sql'];
      statements.set(key, {
        service: (add.service + approve.service) / 2,
        baseline: (add.baseline + approve.baseline) / 2,
        detail:
          `add: service ${add.service}, baseline ${add.baseline}; ` +
          `approve: service ${approve.service}, baseline ${approve.baseline} ` +
          '(BEGIN/COMMIT not counted on either side)',
      });
      continue;
    }
    const counts = { service: [] as number[], baseline: [] as number[] };
    for (const request of readRequests(key, ctx.fixtures, ctx.callers)) {
      const x = await exchange(service, baseline, request, request, countStatements);
      compare(`${key} ${request.method} ${request.path}`, x.service, x.baseline);
      counts.service.push(x.sql.service);
      counts.baseline.push(x.sql.baseline);
      if (x.service.status !== 200) {
        problems.push(
          `${key} ${request.path}: the service answered ${x.service.status}: ${x.service.body.slice(0, 300)}`,
        );
      } else if (key === 'search') {
        const q = new URLSearchParams(request.path.split('?')[1]).get('q') ?? '';
        searchCounts.set(q, (JSON.parse(x.service.body) as { count: number }).count);
      }
    }
    const distinct = [...new Set(counts.service)];
    statements.set(key, {
      service: mean(counts.service),
      baseline: mean(counts.baseline),
      ...(distinct.length > 1 ? { detail: `service per request: ${distinct.join(', ')}` } : {}),
    });
  }
  if (problems.length > 0) {
    throw new Error(
      `the baseline does not answer what the service answers, so the comparison would mean nothing:\n  - ${problems.join('\n  - ')}`,
    );
  }
  return { statements, searchCounts };
}
