import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withClient } from '../lib/db';
import { signAccessToken } from '../lib/jwt';
import { metricSum, metricsOf } from '../lib/metrics';
import type { BenchOptions } from '../lib/options';
import { RESULTS } from '../lib/paths';
import type { Server } from '../lib/processes';
import type { LoadPlan, PlannedRequest } from '../lib/protocol';
import { GRAPHQL_MY_MEETINGS, readRequests } from '../lib/scenarios';
import { prepareContext, type BenchContext } from './prepare';
import { fmt, log } from './progress';
import { KEYS, startBaseline, startService, TOKENS } from './targets';
import { alternating, type Measured, measurePlan, noRuns } from './timed-runs';

/*
 * The answer cache pass (--cache, --cache-only): a service with RESPONSE_CACHE=on beside the
 * baseline answering the same reads uncached.
 *   - polling clients: the REST meeting and GraphQL myMeetings (by GET), 9 requests of 10 sending
 *     the ETag they hold (answered 304), 1 sending none (the whole answer);
 *   - a hot meeting: its 50 participants read it (REST) while its owner renames it once a second;
 *     after each rename every participant's next answer is checked against the database.
 * Each against the baseline's uncached read of the same data (REST meeting, GraphQL myMeetings).
 */

const SAME_OF_TEN = 9;
const WRITE_EVERY_MS = 1_000;
const RENAME = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;

interface Row {
  name: string;
  service: Tally;
  baseline: Tally;
  /** The service's own counts over its runs: cache lookups, statements. */
  counted: Counted;
  checks?: { writes: number; answers: number; wrong: number };
}

interface Tally {
  /** Right answers (200 and 304) per second. */
  rps: number;
  statuses: Record<string, number>;
  cpuPerRequest: number;
}

interface Counted {
  hits: number;
  misses: number;
  statements: number;
}

function tally(measured: Measured): Tally {
  const statuses: Record<string, number> = {};
  let right = 0;
  let seconds = 0;
  let cpu = 0;
  let responses = 0;
  for (const result of measured.results) {
    for (const [status, count] of Object.entries(result.statusCounts)) {
      statuses[status] = (statuses[status] ?? 0) + count;
      if (status === '200' || status === '304') {
        right += count;
      }
    }
    seconds += result.seconds;
    cpu += result.targetCpuMs ?? Number.NaN;
    responses += result.responses;
  }
  return { rps: right / seconds, statuses, cpuPerRequest: cpu / responses };
}

/** The service's counters now (its /metrics). */
async function counters(service: Server): Promise<Counted> {
  const text = (await metricsOf(service)) ?? '';
  return {
    hits: metricSum(text, 'answer_cache_lookups_total{outcome="hit"}'),
    misses: metricSum(text, 'answer_cache_lookups_total{outcome="miss"}'),
    statements: metricSum(text, 'db_statements_total'),
  };
}

/** A polling client's cycle: the request with the tag it holds 9 times, once without. */
async function polling(service: Server, request: PlannedRequest): Promise<LoadPlan> {
  const first = await fetch(`${service.url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const body = await first.text();
  const etag = first.headers.get('etag');
  if (first.status !== 200 || !etag) {
    throw new Error(`cache pass: ${request.path} answered ${first.status} without an ETag`);
  }
  const held: PlannedRequest = {
    ...request,
    headers: { ...request.headers, 'if-none-match': etag },
    expect: { status: 304, etag },
  };
  const whole: PlannedRequest = { ...request, expect: { status: 200, etag, length: body.length } };
  return {
    kind: 'cycle',
    requests: [...Array.from({ length: SAME_OF_TEN }, () => held), whole],
  };
}

/** GraphQL myMeetings sent by GET, as a client holding its ETag would. */
function myMeetingsByGet(ctx: BenchContext): PlannedRequest {
  const [post] = readRequests('my-meetings', ctx);
  const search = new URLSearchParams({
    operationName: 'BenchMyMeetings',
    query: GRAPHQL_MY_MEETINGS,
    variables: JSON.stringify({ limit: 20 }),
  });
  return {
    method: 'GET',
    path: `/graphql?${search.toString()}`,
    headers: { ...post?.headers, 'apollo-require-preflight': 'true' },
  };
}

/**
 * The owner renames the meeting every second while `reading` lasts; after each rename, every
 * participant reads it once and the title is compared with the database's.
 */
async function renameAndCheck(
  service: Server,
  ctx: BenchContext,
  participants: readonly string[],
  until: () => boolean,
): Promise<NonNullable<Row['checks']>> {
  const checks = { writes: 0, answers: 0, wrong: 0 };
  const meetingId = ctx.fixtures.bigMeetingId;
  while (!until()) {
    const started = performance.now();
    const title = `Hot meeting ${checks.writes + 1}`;
    const renamed = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.callers.demo}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: RENAME, variables: { input: { meetingId, title } } }),
    });
    if (renamed.status !== 200 || (await renamed.text()).includes('"errors"')) {
      throw new Error(`cache pass: the rename was answered ${renamed.status}`);
    }
    checks.writes += 1;
    const stored = await withClient(ctx.dbUrl, async (client) => {
      const { rows } = await client.query<{ title: string }>(
        'select "title" from "meetings" where "id" = $1',
        [meetingId],
      );
      return rows[0]?.title;
    });
    for (const token of participants) {
      const answer = await fetch(`${service.url}/api/v1/meeting/${meetingId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const record = (await answer.json()) as { title?: string };
      checks.answers += 1;
      if (answer.status !== 200 || record.title !== stored) {
        checks.wrong += 1;
      }
    }
    const left = WRITE_EVERY_MS - (performance.now() - started);
    if (left > 0) {
      await new Promise((resolve) => setTimeout(resolve, left));
    }
  }
  return checks;
}

async function participantTokens(ctx: BenchContext): Promise<string[]> {
  const ids = await withClient(ctx.dbUrl, async (client) => {
    const { rows } = await client.query<{ user_id: string }>(
      'select p."user_id" from "participants" p join "users" u on u."id" = p."user_id" ' +
        'where p."meeting_id" = $1 and u."is_active" and u."deleted_at" is null order by 1',
      [ctx.fixtures.bigMeetingId],
    );
    return rows.map((row) => row.user_id);
  });
  return ids.map((id) => signAccessToken(KEYS, TOKENS, id));
}

/** Runs one scenario: the service's plan and the baseline's, alternating, `rounds` times. */
async function scenario(
  name: string,
  targets: { service: Server; baseline: Server },
  plans: { service: LoadPlan; baseline: LoadPlan },
  options: BenchOptions,
  beside?: (until: () => boolean) => Promise<Row['checks']>,
): Promise<Row> {
  const runs = { service: noRuns(), baseline: noRuns() };
  const before = await counters(targets.service);
  let checks: Row['checks'];
  await alternating(options.rounds, ['service', 'baseline'] as const, async (side, round) => {
    const label = `${name} · ${side.padEnd(8)} · round ${round}/${options.rounds}`;
    let done = false;
    const besides = side === 'service' && beside ? beside(() => done) : null;
    try {
      await measurePlan(plans[side], targets[side], options, label, runs[side]);
    } finally {
      done = true;
    }
    const checked = await besides;
    if (checked) {
      checks = {
        writes: (checks?.writes ?? 0) + checked.writes,
        answers: (checks?.answers ?? 0) + checked.answers,
        wrong: (checks?.wrong ?? 0) + checked.wrong,
      };
    }
  });
  const after = await counters(targets.service);
  return {
    name,
    service: tally(runs.service),
    baseline: tally(runs.baseline),
    counted: {
      hits: after.hits - before.hits,
      misses: after.misses - before.misses,
      statements: after.statements - before.statements,
    },
    ...(checks ? { checks } : {}),
  };
}

const statusText = (statuses: Record<string, number>): string =>
  Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}: ${fmt(count)}`)
    .join(', ');

function report(rows: readonly Row[], options: BenchOptions): string {
  const lines = rows.map((row) => {
    const served = Object.values(row.service.statuses).reduce((n, c) => n + c, 0);
    const lookups = row.counted.hits + row.counted.misses;
    return (
      `| ${row.name} | ${fmt(row.service.rps)} | ${fmt(row.baseline.rps)} | ` +
      `**${(row.service.rps / row.baseline.rps).toFixed(2)}×** | ` +
      `${row.service.cpuPerRequest.toFixed(2)} | ${row.baseline.cpuPerRequest.toFixed(2)} | ` +
      `${statusText(row.service.statuses)} | ` +
      `${lookups > 0 ? `${((100 * row.counted.hits) / lookups).toFixed(1)}%` : '–'} | ` +
      `${(row.counted.statements / served).toFixed(2)} | ` +
      `${row.checks ? `${row.checks.writes} writes, ${fmt(row.checks.answers)} answers checked, ${row.checks.wrong} wrong` : '–'} |`
    );
  });
  return [
    '## The answer cache: polling clients and a hot meeting',
    '',
    `A service with RESPONSE_CACHE=on against the baseline's uncached read of the same data ` +
      `(REST meeting of 50 participants; GraphQL myMeetings(limit: 20)), ${options.connections} ` +
      `connections, ${options.warmupSeconds} s warm-up + ${options.durationSeconds} s measured, ` +
      `${options.rounds} round(s), alternating (bench/run/cache-pass.ts). Right answers (200 and ` +
      `304) per second; Node CPU per response; cache hits of the service's lookups and SQL ` +
      `statements per response from its metrics (the checks' own requests included).`,
    '',
    '| scenario | service req/s | baseline req/s | ratio | service CPU ms/req | baseline CPU ms/req | service statuses | cache hits | SQL/req | correctness |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |',
    ...lines,
  ].join('\n');
}

/** Runs the pass, prints it and writes bench/results/answer-cache.md. */
export async function cacheRun(
  dbUrl: string,
  options: BenchOptions,
  command: string,
): Promise<void> {
  log('Answer cache pass: a service with RESPONSE_CACHE=on, and the baseline…');
  const service = await startService(dbUrl, 'warn', {
    name: 'service (answer cache)',
    env: { RESPONSE_CACHE: 'on' },
  });
  const baseline = await startBaseline(dbUrl);
  const ctx = await prepareContext(dbUrl, service);
  const original = await withClient(dbUrl, async (client) => {
    const { rows } = await client.query<{ title: string }>(
      'select "title" from "meetings" where "id" = $1',
      [ctx.fixtures.bigMeetingId],
    );
    return rows[0]?.title ?? '';
  });
  try {
    const targets = { service, baseline };
    const meetingRest = readRequests('meeting-rest', ctx);
    const myMeetings = readRequests('my-meetings', ctx);
    const rows: Row[] = [];
    const [meeting] = meetingRest;
    if (!meeting) {
      throw new Error('cache pass: no meeting request');
    }
    rows.push(
      await scenario(
        'polling REST meeting (9 in 10 If-None-Match)',
        targets,
        {
          service: await polling(service, meeting),
          baseline: { kind: 'cycle', requests: meetingRest },
        },
        options,
      ),
    );
    rows.push(
      await scenario(
        'polling GraphQL myMeetings by GET (9 in 10 If-None-Match)',
        targets,
        {
          service: await polling(service, myMeetingsByGet(ctx)),
          baseline: { kind: 'cycle', requests: myMeetings },
        },
        options,
      ),
    );
    // Those who may sign in: the meeting's active participants.
    const tokens = await participantTokens(ctx);
    const hot: PlannedRequest[] = tokens.map((token) => ({
      method: 'GET',
      path: `/api/v1/meeting/${ctx.fixtures.bigMeetingId}`,
      headers: { ...meeting.headers, authorization: `Bearer ${token}` },
    }));
    rows.push(
      await scenario(
        `hot meeting: its ${tokens.length} participants read it, renamed once a second`,
        targets,
        {
          service: { kind: 'cycle', requests: hot },
          baseline: { kind: 'cycle', requests: meetingRest },
        },
        options,
        (until) => renameAndCheck(service, ctx, tokens, until),
      ),
    );
    const text = `${report(rows, options)}\n\n\`${command}\`\n`;
    log(`\n${text}`);
    writeFileSync(join(RESULTS, 'answer-cache.md'), text);
  } finally {
    await withClient(dbUrl, (client) =>
      client.query('update "meetings" set "title" = $2 where "id" = $1', [
        ctx.fixtures.bigMeetingId,
        original,
      ]),
    );
    await service.stop();
    await baseline.stop();
  }
}
