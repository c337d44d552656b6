import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupWrites, readFixtures } from '../lib/db';
import type { BenchOptions } from '../lib/options';
import { RESULTS } from '../lib/paths';
import { profileMarkdown, summarizeProfile } from '../lib/profile';
import { type LoadKey, SCENARIOS } from '../lib/scenarios';
import { summarize } from '../lib/stats';
import { cleanupScenarioData, makeScenarioData, prepareContext } from './prepare';
import { fmt, log } from './progress';
import { startService } from './targets';
import { measure, noRuns } from './timed-runs';

/** --profile: each scenario against `node --cpu-prof dist/src/main.js`, summarised. */
export async function profileMode(
  options: BenchOptions,
  scenarios: readonly LoadKey[],
): Promise<void> {
  const dir = join(RESULTS, 'profiles');
  mkdirSync(dir, { recursive: true });
  const sections: string[] = ['# CPU profiles of the service', ''];
  for (const key of scenarios) {
    const file = `${key}.cpuprofile`;
    const service = await startService(options.databaseUrl, 'warn', {
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${file}`],
    });
    const run = noRuns();
    try {
      const ctx = await prepareContext(options.databaseUrl, service);
      Object.assign(ctx, await makeScenarioData([key], ctx, service));
      await measure(ctx, key, service, options, `profile ${key}`, run);
    } finally {
      await service.stop();
    }
    const title = SCENARIOS.find((s) => s.key === key)?.title ?? key;
    const skipMs = (run.measureStartedAt ?? service.spawnedAt) - service.spawnedAt;
    const summary = summarizeProfile(join(dir, file), skipMs);
    const rps = summarize(run.results, 0).rps;
    const section = profileMarkdown(
      `${title}: ${options.durationSeconds} s at ${options.connections} connections, ${fmt(rps)} req/s ` +
        `(samples of the measured phase only)`,
      summary,
    );
    writeFileSync(join(RESULTS, `profile-${key}.md`), `${section}\n`);
    sections.push(section);
    log(section);
  }
  await cleanupWrites(options.databaseUrl, (await readFixtures(options.databaseUrl, 1)).writerId);
  await cleanupScenarioData(options.databaseUrl);
  writeFileSync(join(RESULTS, 'profiles.md'), sections.join('\n'));
  log(
    `Profiles in ${join('bench', 'results', 'profiles')}; summaries in bench/results/profiles.md ` +
      'and profile-<scenario>.md',
  );
}
