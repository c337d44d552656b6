import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { withClient } from '../lib/db';
import type { BenchOptions } from '../lib/options';
import { RESULTS, ROOT, serviceNodeFlags } from '../lib/paths';
import { chart, markdown, type Report } from '../lib/report';
import { scenarioInfo } from '../lib/scenarios';
import type { BenchContext } from './prepare';

// The report's facts about the machine and the code, and its files in bench/results/.

function gitDescription(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'rest'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${commit} + uncommitted changes in src/ or rest/` : commit;
  } catch {
    return 'unknown';
  }
}

export async function environment(dbUrl: string): Promise<Record<string, string>> {
  const version = await withClient(dbUrl, async (client) => {
    const row = (await client.query<{ v: string }>("select current_setting('server_version') as v"))
      .rows[0];
    return row?.v ?? 'unknown';
  });
  const autocannon = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules/autocannon/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  return {
    commit: gitDescription(),
    node: process.version,
    cpu: `${cpus()[0]?.model ?? 'unknown'} × ${availableParallelism()} (shared by load generator, service, baseline and PostgreSQL)`,
    memory: `${(totalmem() / 1073741824).toFixed(0)} GiB`,
    postgresql: `${version} on 127.0.0.1`,
    autocannon,
    'service start': `\`node ${serviceNodeFlags().join(' ')} dist/src/main.js\`, NODE_ENV=production, DB_POOL_SIZE=10 (default)`,
    'baseline start': '`node dist/bench/baseline/server.js`, pg pool of 10',
  };
}

export function writeReport(report: Report): string {
  mkdirSync(RESULTS, { recursive: true });
  const name = report.mode === 'quick' ? 'quick' : 'latest';
  writeFileSync(join(RESULTS, `${name}.svg`), chart(report));
  writeFileSync(join(RESULTS, `${name}.md`), markdown(report, `${name}.svg`));
  writeFileSync(join(RESULTS, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  return join('bench', 'results', `${name}.md`);
}

/** What a reader of the report needs to know about how this run measured. */
export function runNotes(options: BenchOptions, ctx: BenchContext): string[] {
  const busy = ctx.fixtures.busy;
  return [
    `Timed runs use LOG_LEVEL=${options.quick ? 'info (--quick does not restart the service)' : 'warn'}; SQL statements per request come from the equality pass with LOG_LEVEL=info (the service's \`sqlStatements\` log field; the baseline counts its own; neither counts BEGIN/COMMIT).`,
    ...(Object.keys(options.serviceEnv).length > 0
      ? [`Service environment for this run: ${JSON.stringify(options.serviceEnv)}.`]
      : []),
    ...(options.acceptEncoding
      ? [
          `Every request sent Accept-Encoding: ${options.acceptEncoding} (the baseline never compresses).`,
        ]
      : []),
    'The service caches verified access tokens (src/platform/auth/tokens.ts); the baseline verifies the signature on every request, as specified.',
    `Bodies of every scenario with a baseline were checked byte-for-byte equal before measuring (writes: equal but for the new participant's id, meeting id and timestamps, and the same stored statuses).`,
    ...(ctx.suggest
      ? [
          `${scenarioInfo('suggest-times').title} has no baseline (${scenarioInfo('suggest-times').noBaseline}): ${ctx.suggest.summary}. Before measuring, the service's freeBusy of the 10 attendees equalled the busy time the plan makes, and its suggestions the ones the plan makes. The meetings are deleted at the end of the run.`,
        ]
      : []),
    ...(ctx.calendar
      ? [
          `${scenarioInfo('calendar-feed').title} has no baseline (${scenarioInfo('calendar-feed').noBaseline}): ${ctx.calendar.summary}. Before measuring, its document equalled the plan as ical.js reads it (every meeting's title, times and zone, description, URL, status, attendees and the feed user's answer, organizer, rule, cancelled and moved occurrences, and its first occurrences as ical.js expands them), and If-None-Match of its ETag answered 304; during the runs every answer was checked by status, ETag and length. The meetings and the feed are deleted at the end of the run.`,
        ]
      : []),
    'The baseline is the practical limit for this stack: it verifies the same EdDSA token, loads the caller and runs the fewest SQL statements (joins instead of per-relation queries) with prepared statements.',
    `Writes: each add goes to a fresh meeting (created before each run, deleted after the scenario), each approve is by the user just added; the caller of "my meetings" is ${busy.email} (${busy.meetings} meetings).`,
  ];
}
