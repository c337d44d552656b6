import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  type DataSpec,
  databaseName,
  databaseUrl,
  FULL_DATA,
  SMALL_DATA,
  ensureDatabase,
  ensureStatistics,
  readFixtures,
  seed,
  seedProblems,
} from '../lib/db';
import { login } from '../lib/http';
import { signAccessToken } from '../lib/jwt';
import type { BenchOptions } from '../lib/options';
import { ROOT } from '../lib/paths';
import type { Server } from '../lib/processes';
import type { MadeData, ScenarioData, ScenarioKey } from '../lib/scenarios';
import { calendarFeedFor, cleanupCalendarFeed } from './calendar-setup';
import { fmt, log } from './progress';
import { cleanupSuggestTimes, suggestTimesFor } from './suggest-setup';
import { KEYS, PASSWORD, TOKENS } from './targets';

// Before the runs: the build, the database and its data, and the callers' tokens.

const INVITEES = 1000;

/**
 * `npm run build` (SWC, about a second), so the service measured is the working tree compiled as
 * production compiles it. Always: `npm run bench`'s tsc step writes the few service modules that
 * bench/ imports (src/platform/shared/free-port.ts) into the same dist/, and dist/src may be some other
 * compiler's output (a `tsc` without --noEmit writes there too). --no-build uses dist/ as it is.
 */
export function ensureBuilt(options: BenchOptions): void {
  const built = existsSync(join(ROOT, 'dist/src/main.js'));
  if (!options.build && built) {
    return;
  }
  log('Building the service (npm run build)…');
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error('npm run build failed');
  }
}

export async function prepareDatabase(url: string, spec: DataSpec, reseed: boolean): Promise<void> {
  const name = databaseName(url);
  if (await ensureDatabase(url)) {
    log(`Created database ${name}.`);
  }
  const problems = reseed ? ['--reseed given'] : await seedProblems(url, spec);
  if (problems.length === 0) {
    log(`Database ${name} holds the expected data (${fmt(spec.users)} users): not reseeding.`);
    if (await ensureStatistics(url)) {
      log(`Ran VACUUM ANALYZE on ${name}: its tables had no planner statistics.`);
    }
    return;
  }
  log(
    `Seeding ${name} with ${fmt(spec.users)} users (${problems.join('; ')}); ` +
      `${spec.users >= 50_000 ? 'this takes a minute or two' : 'this takes a few seconds'}…`,
  );
  await seed(url, spec);
  const left = await seedProblems(url, spec);
  if (left.length > 0) {
    throw new Error(`after seeding, ${name} still lacks: ${left.join('; ')}`);
  }
}

export interface BenchContext extends ScenarioData {
  dbUrl: string;
  writerToken: string;
  invitees: { id: string; token: string }[];
}

/**
 * The callers and ids of the scenarios. The data of suggest-times and calendar-feed is made apart
 * (makeScenarioData), once a run: pass what was made to keep it across restarts.
 */
export async function prepareContext(
  dbUrl: string,
  service: Server,
  made: MadeData = { suggest: null, calendar: null },
): Promise<BenchContext> {
  const fixtures = await readFixtures(dbUrl, INVITEES);
  const jwks = (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as {
    keys?: { x?: string }[];
  };
  if (jwks.keys?.[0]?.x !== KEYS.x) {
    throw new Error(
      "the key derived from JWT_SECRET (bench/lib/jwt.ts) is not the service's: the key derivation in src/platform/auth/keys.ts changed",
    );
  }
  const [demo, inbox, busy] = await Promise.all([
    login(service.url, fixtures.demoEmail, PASSWORD),
    login(service.url, fixtures.inboxEmail, PASSWORD),
    login(service.url, fixtures.busy.email, PASSWORD),
  ]);
  return {
    dbUrl,
    fixtures,
    callers: { demo, inbox, busy },
    suggest: made.suggest,
    calendar: made.calendar,
    writerToken: signAccessToken(KEYS, TOKENS, fixtures.writerId),
    invitees: fixtures.invitees.map((id) => ({ id, token: signAccessToken(KEYS, TOKENS, id) })),
  };
}

/**
 * Makes the data of the scenarios among `scenarios` that need data of their own, through
 * `service` (run/suggest-setup.ts, run/calendar-setup.ts); null for those not asked for.
 */
export async function makeScenarioData(
  scenarios: readonly ScenarioKey[],
  ctx: BenchContext,
  service: Server,
): Promise<MadeData> {
  return {
    suggest: await suggestTimesFor(scenarios, ctx, service),
    calendar: await calendarFeedFor(scenarios, ctx, service),
  };
}

/** Removes what makeScenarioData made (and what an interrupted run left). */
export async function cleanupScenarioData(dbUrl: string): Promise<void> {
  await cleanupSuggestTimes(dbUrl);
  await cleanupCalendarFeed(dbUrl);
}

/**
 * The data of this run, prepared: the full set, or for --quick whatever is there (else the small
 * set). Points `options.databaseUrl` at it.
 */
export async function chooseData(
  options: BenchOptions,
): Promise<{ dbUrl: string; spec: DataSpec }> {
  let dbUrl = options.databaseUrl;
  let spec = FULL_DATA;
  if (options.quick && !options.reseed) {
    await ensureDatabase(dbUrl);
    if ((await seedProblems(dbUrl, FULL_DATA)).length > 0) {
      dbUrl = databaseUrl(dbUrl, `${databaseName(dbUrl)}_10k`);
      spec = SMALL_DATA;
      log(
        `--quick: ${databaseName(options.databaseUrl)} is not seeded; using ${databaseName(dbUrl)} (10,000 users).`,
      );
    }
  }
  await prepareDatabase(dbUrl, spec, options.reseed);
  options.databaseUrl = dbUrl;
  return { dbUrl, spec };
}
