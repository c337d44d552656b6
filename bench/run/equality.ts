import { createWriteMeetings, meetingState } from '../lib/db';
import { type Answer, firstDifference, send } from '../lib/http';
import type { Server } from '../lib/processes';
import type { PlannedRequest } from '../lib/protocol';
import {
  addRequest,
  approveRequest,
  hasBaseline,
  isPass,
  readRequests,
  type ScenarioKey,
} from '../lib/scenarios';
import { roomProblems, suggestionProblems } from '../lib/suggest-plan';
import { feedAnswerProblems, taggedBy } from './calendar-setup';
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

/**
 * A GraphQL answer without the cost the service tells in `extensions.cost`
 * (src/platform/graphql/operation-cost.ts), which the baseline does not count, nor a build from
 * before it: the rest must be the same bytes.
 */
export function withoutCost(body: string): string {
  const cost = '"cost":\\{"requested":\\d+,"actual":\\d+\\}';
  return body
    .replace(new RegExp(`,"extensions":\\{${cost}\\}\\}(\\n?)$`), '}$1')
    .replace(new RegExp(`,${cost}`), '');
}

export interface Statements {
  service: number;
  baseline: number;
  detail?: string;
}

/**
 * A target of the equality pass: what its messages call it, and how it counts its SQL statements:
 * `log`, the service's `sqlStatements` log field (with LOG_LEVEL=info); `stats`, the baseline's
 * own counter (GET /__stats). `baseline`: it is the bare baseline, which answers only the
 * scenarios that have one (scenarios.ts, `noBaseline`).
 */
export interface Side {
  name: string;
  server: Server;
  counts: 'log' | 'stats';
  baseline: boolean;
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

interface Sent {
  answer: Answer;
  /** SQL statements the side spent on the request (NaN for a service without info logs). */
  sql: number;
}

let exchanges = 0;

/** One request to one side, counting the statements it sent. */
async function sendCounted(
  side: Side,
  request: PlannedRequest,
  countStatements: boolean,
): Promise<Sent> {
  if (side.counts === 'stats') {
    const before = await baselineStats(side.server);
    const answer = await send(side.server.url, request);
    const after = await baselineStats(side.server);
    return { answer, sql: after.statements - before.statements };
  }
  const mark = side.server.lines.length;
  exchanges += 1;
  const reqId = `bench-${exchanges}`;
  const answer = await send(side.server.url, {
    ...request,
    headers: { ...request.headers, 'x-request-id': reqId },
  });
  const sql = countStatements ? await loggedStatements(side.server, mark, reqId) : Number.NaN;
  return { answer, sql };
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

/** SQL statements per request of each side (`first`, `second`), for one scenario. */
export interface SideStatements {
  first: number;
  second: number;
  detail?: string;
}

interface CheckOutcome<S> {
  statements: Map<ScenarioKey, S>;
  /** Matches of each search text (the `count` the first side answered). */
  searchCounts: Map<string, number>;
}

/**
 * Every scenario's requests against the service and the baseline: same status, same bytes (writes:
 * the same bytes but for the new participant's id, meeting id and timestamps, and the same stored
 * state). With the service logging requests (LOG_LEVEL=info), also counts SQL statements per request.
 */
export async function checkEquality(
  ctx: BenchContext,
  service: Server,
  baseline: Server,
  scenarios: readonly ScenarioKey[],
  countStatements: boolean,
): Promise<CheckOutcome<Statements>> {
  const outcome = await compareAnswers(
    ctx,
    { name: 'service', server: service, counts: 'log', baseline: false },
    { name: 'baseline', server: baseline, counts: 'stats', baseline: true },
    scenarios,
    countStatements,
  );
  const statements = new Map<ScenarioKey, Statements>();
  for (const [key, { first, second, detail }] of outcome.statements) {
    statements.set(key, { service: first, baseline: second, ...(detail ? { detail } : {}) });
  }
  return { statements, searchCounts: outcome.searchCounts };
}

/**
 * How the first side's answer to a scenario without a baseline differs from what it must be
 * (such a scenario's own check instead of the baseline's bytes).
 */
function aloneProblems(key: ScenarioKey, ctx: BenchContext, answer: Answer): string[] {
  if ((key === 'calendar-feed' || key === 'calendar-feed-304') && ctx.calendar) {
    return feedAnswerProblems(ctx.calendar, answer, key === 'calendar-feed-304');
  }
  if (answer.status !== 200) {
    return [`answered ${answer.status}: ${answer.body.slice(0, 300)}`];
  }
  if (key === 'suggest-times' && ctx.suggest) {
    return suggestionProblems(answer.body, ctx.suggest.expected);
  }
  if (key === 'suggest-times-room' && ctx.suggest?.room) {
    return [
      ...suggestionProblems(answer.body, ctx.suggest.expected),
      ...roomProblems(answer.body, ctx.suggest.room.expected),
    ];
  }
  return [`no check of its answer (${key} has no baseline)`];
}

/**
 * The equality pass between any two sides: the service and the baseline, or (--against) two
 * builds of the service, whose REST and GraphQL bodies must be the same bytes for the same requests.
 * A scenario the baseline does not answer goes to the first side only, when the second is the
 * baseline, and its answer must be the one the scenario expects.
 */
export async function compareAnswers(
  ctx: BenchContext,
  first: Side,
  second: Side,
  scenarios: readonly ScenarioKey[],
  countStatements: boolean,
): Promise<CheckOutcome<SideStatements>> {
  const problems: string[] = [];
  const statements = new Map<ScenarioKey, SideStatements>();
  const searchCounts = new Map<string, number>();
  const compare = (label: string, a: Answer, b: Answer): void => {
    if (a.status !== b.status || withoutCost(a.body) !== withoutCost(b.body)) {
      problems.push(
        `${label}: ${first.name} ${a.status}, ${second.name} ${b.status}; ${firstDifference(a.body, b.body)}`,
      );
    }
  };
  const exchange = async (
    toFirst: PlannedRequest,
    toSecond: PlannedRequest,
  ): Promise<{ first: Sent; second: Sent }> => ({
    first: await sendCounted(first, toFirst, countStatements),
    second: await sendCounted(second, toSecond, countStatements),
  });
  for (const key of scenarios) {
    // A pass's scenario has no requests to compare: its pass checks what it delivers.
    if (isPass(key)) {
      continue;
    }
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
      const sql = new Map<string, SideStatements>();
      for (const step of ['add', 'add again', 'approve', 'approve again']) {
        const request = (meetingId: string): PlannedRequest =>
          step.startsWith('add')
            ? addRequest(ctx.writerToken, meetingId, invitee.id)
            : approveRequest(invitee.token, meetingId);
        const x = await exchange(request(m1), request(m2));
        sql.set(step, { first: x.first.sql, second: x.second.sql });
        compare(
          `writes: ${step}`,
          { status: x.first.answer.status, body: masked(x.first.answer.body, volatile) },
          { status: x.second.answer.status, body: masked(x.second.answer.body, volatile) },
        );
        if ((step === 'add' || step === 'approve') && x.first.answer.status !== 200) {
          problems.push(
            `writes: the ${first.name} refused to ${step} (${x.first.answer.status} ${x.first.answer.body})`,
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
        problems.push(
          `writes: stored state differs: ${first.name} ${state(s1)}, ${second.name} ${state(s2)}`,
        );
      }
      const add = sql.get('add') as SideStatements;
      const approve = sql.get('approve') as SideStatements;
      statements.set(key, {
        first: (add.first + approve.first) / 2,
        second: (add.second + approve.second) / 2,
        detail:
          `add: ${first.name} ${add.first}, ${second.name} ${add.second}; ` +
          `approve: ${first.name} ${approve.first}, ${second.name} ${approve.second} ` +
          `(BEGIN/COMMIT not counted on either side)`,
      });
      continue;
    }
    const counts = { first: [] as number[], second: [] as number[] };
    const alone = second.baseline && !hasBaseline(key);
    const toSecond = alone ? [] : readRequests(key, await taggedBy(second.server, key, ctx));
    for (const [index, request] of readRequests(
      key,
      await taggedBy(first.server, key, ctx),
    ).entries()) {
      if (alone) {
        const sent = await sendCounted(first, request, countStatements);
        counts.first.push(sent.sql);
        counts.second.push(Number.NaN);
        problems.push(
          ...aloneProblems(key, ctx, sent.answer).map((p) => `${key} (${first.name}): ${p}`),
        );
        continue;
      }
      const x = await exchange(request, toSecond[index] ?? request);
      compare(`${key} ${request.method} ${request.path}`, x.first.answer, x.second.answer);
      counts.first.push(x.first.sql);
      counts.second.push(x.second.sql);
      if (x.first.answer.status !== (request.expect?.status ?? 200)) {
        problems.push(
          `${key} ${request.path}: the ${first.name} answered ${x.first.answer.status}: ${x.first.answer.body.slice(0, 300)}`,
        );
      } else if (key === 'search') {
        const q = new URLSearchParams(request.path.split('?')[1]).get('q') ?? '';
        searchCounts.set(q, (JSON.parse(x.first.answer.body) as { count: number }).count);
      }
    }
    const distinct = [...new Set(counts.first)];
    statements.set(key, {
      first: mean(counts.first),
      second: mean(counts.second),
      ...(distinct.length > 1
        ? { detail: `${first.name} per request: ${distinct.join(', ')}` }
        : {}),
    });
  }
  if (problems.length > 0) {
    throw new Error(
      `the ${second.name} does not answer what the ${first.name} answers, so the comparison would mean nothing:\n  - ${problems.join('\n  - ')}`,
    );
  }
  return { statements, searchCounts };
}
