import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COST_LIMITS } from '../../src/platform/graphql/cost.settings';
import { benchUsers } from '../lib/db';
import { signAccessToken } from '../lib/jwt';
import { RESULTS } from '../lib/paths';
import type { Server } from '../lib/processes';
import { quantile } from '../lib/stats';
import { fmt, log } from './progress';
import { KEYS, startService, TOKENS } from './targets';

/*
 * The budget pass (--budget, --budget-only): one caller sends the costliest operation it may (11
 * aliases of the widest suggestion: 50 users, 62 days, every 5 minutes, just under
 * MAX_QUERY_COST) from 4 connections as fast as it can, beside another caller reading its own
 * profile one request at a time. The light caller's latency is measured alone, then beside the
 * heavy one, on a service with the default COST_BUDGET_PER_MINUTE and on one without a budget
 * (0), each of its own. The light caller's samples are one request in flight at a time (a
 * closed loop): a request held behind a heavy one is one sample, however long it waits.
 */

const HEAVY_CONNECTIONS = 4;
const ALIASES = 11;
const DAY_MS = 86_400_000;

const LIGHT = '{ me { id name } }';
const heavyQuery = `query ($input: SuggestMeetingTimesInput!) { ${Array.from(
  { length: ALIASES },
  (_, i) => `a${i}: suggestMeetingTimes(input: $input) { startTime availableUserIds }`,
).join(' ')} }`;

interface Phase {
  name: string;
  light: { requests: number; p50: number; p99: number; max: number };
  heavy: { answered: number; refused: number } | null;
}

interface Caller {
  token: string;
  body: string;
}

async function post(service: Server, caller: Caller): Promise<number> {
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
    body: caller.body,
  });
  await response.arrayBuffer();
  return response.status;
}

/** The light caller's latencies (ms) over `seconds`, with the heavy caller running if given. */
async function phase(
  name: string,
  service: Server,
  light: Caller,
  heavy: Caller | null,
  seconds: number,
): Promise<Phase> {
  const until = performance.now() + seconds * 1000;
  const counts = { answered: 0, refused: 0 };
  const heavyLoops = heavy
    ? Array.from({ length: HEAVY_CONNECTIONS }, async () => {
        while (performance.now() < until) {
          const status = await post(service, heavy);
          if (status === 200) {
            counts.answered += 1;
          } else if (status === 429) {
            counts.refused += 1;
          } else {
            throw new Error(`budget pass: the heavy caller was answered ${status}`);
          }
        }
      })
    : [];
  const latencies: number[] = [];
  while (performance.now() < until) {
    const started = performance.now();
    const status = await post(service, light);
    if (status !== 200) {
      throw new Error(`budget pass: the light caller was answered ${status}`);
    }
    latencies.push(performance.now() - started);
  }
  await Promise.all(heavyLoops);
  const sorted = Float64Array.from(latencies).sort();
  return {
    name,
    light: {
      requests: sorted.length,
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      max: sorted[sorted.length - 1] ?? Number.NaN,
    },
    heavy: heavy ? counts : null,
  };
}

/** The pass's callers: 52 bench users, the heavy one asking about 50 of the others. */
async function callers(dbUrl: string): Promise<{ light: Caller; heavy: Caller }> {
  const ids = await benchUsers(
    dbUrl,
    Array.from({ length: 52 }, (_, i) => ({ account: `bench.budget.u${i}`, name: `Budget ${i}` })),
  );
  const [lightId, heavyId, ...others] = ids as [string, string, ...string[]];
  const from = new Date(Date.now() + DAY_MS);
  const input = {
    userIds: others,
    durationMinutes: 30,
    from: from.toISOString(),
    to: new Date(from.getTime() + 62 * DAY_MS).toISOString(),
    stepMinutes: 5,
    first: 50,
  };
  return {
    light: {
      token: signAccessToken(KEYS, TOKENS, lightId),
      body: JSON.stringify({ query: LIGHT }),
    },
    heavy: {
      token: signAccessToken(KEYS, TOKENS, heavyId),
      body: JSON.stringify({ query: heavyQuery, variables: { input } }),
    },
  };
}

/** A service of its own with COST_BUDGET_PER_MINUTE `budget` (the bench's own is the largest). */
async function onService(
  dbUrl: string,
  budget: number,
  run: (service: Server) => Promise<Phase[]>,
): Promise<Phase[]> {
  const service = await startService(dbUrl, 'warn', {
    name: budget === 0 ? 'service (no budget)' : 'service (default budget)',
    env: { COST_BUDGET_PER_MINUTE: String(budget) },
  });
  try {
    return await run(service);
  } finally {
    await service.stop();
  }
}

function report(phases: readonly Phase[], seconds: number): string {
  const alone = phases[0]?.light.p99 ?? Number.NaN;
  const rows = phases.map(
    ({ name, light, heavy }) =>
      `| ${name} | ${fmt(light.requests)} | ${light.p50.toFixed(1)} | ${light.p99.toFixed(1)} ` +
      `| ${(light.p99 / alone).toFixed(2)}× | ${light.max.toFixed(0)} | ` +
      `${heavy ? `${heavy.answered} / ${fmt(heavy.refused)}` : '–'} |`,
  );
  return [
    '## Budget: a heavy caller beside a light one',
    '',
    `Light caller: \`${LIGHT}\`, one request at a time; heavy caller: ${ALIASES} aliases of the ` +
      `widest suggestion (50 users, 62 days, every 5 minutes), ${HEAVY_CONNECTIONS} connections, ` +
      `as fast as answered; ${seconds} s a phase (bench/run/budget-pass.ts).`,
    '',
    '| phase | light requests | p50 ms | p99 ms | p99 ÷ alone | max ms | heavy 200 / 429 |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

/** Runs the pass, prints it and writes bench/results/budget.md. */
export async function budgetRun(dbUrl: string, quick: boolean, command: string): Promise<void> {
  const seconds = quick ? 5 : 20;
  log(`Budget pass: ${seconds} s phases, on a service with the default budget, then none…`);
  const { light, heavy } = await callers(dbUrl);
  const withBudget = await onService(
    dbUrl,
    COST_LIMITS.budgetPerMinute.default,
    async (service) => [
      await phase('alone (default budget)', service, light, null, seconds),
      await phase('beside the heavy caller (default budget)', service, light, heavy, seconds),
    ],
  );
  const without = await onService(dbUrl, 0, async (service) => [
    await phase('beside the heavy caller (no budget)', service, light, heavy, seconds),
  ]);
  const text = `${report([...withBudget, ...without], seconds)}\n\n\`${command}\`\n`;
  log(`\n${text}`);
  writeFileSync(join(RESULTS, 'budget.md'), text);
}
