import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, relative } from 'node:path';
import { memoryOf } from './lib/processes';
import { options } from './soak/options';
import { buildReport, type Sample } from './soak/report';
import { startSoakService } from './soak/service';
import { resetTraffic, traffic } from './soak/traffic';
import { actors, pick, pickOperation, setupUsers } from './soak/workload';

/**
 * Soak test (`npm run soak -- --minutes 10`; not part of CI): starts the built service
 * (dist/src/main.js) on PostgreSQL (DATABASE_URL, default the local server's database `soak`,
 * created if missing) or on the embedded database (--embedded, a temporary DATA_DIR), runs a fixed
 * concurrency of mixed reads and writes for the given time, samples the service's RSS from
 * /proc/<pid>/status, and reports errors, latencies, memory over time and the RSS trend over the
 * second half (a linear regression; "steady growth" above --max-slope MB/min).
 * Everything talks to 127.0.0.1 only; the run stops by itself (Ctrl-C stops it early, reported).
 */

const mb = (bytes: number) => bytes / 1048576;
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** Samples the service's memory and the request counts every `everyMs`, printing each sample. */
function sampleEvery(pid: number, t0: number, everyMs: number): { stop(): Sample[] } {
  const samples: Sample[] = [];
  let lastRequests = 0;
  let lastAt = t0;
  const takeSample = () => {
    const now = performance.now();
    const memory = memoryOf([pid]);
    if (memory.rss === 0) {
      return; // the process is gone
    }
    const { totalRequests, totalErrors } = traffic;
    const sample: Sample = {
      elapsedS: Math.round((now - t0) / 1000),
      rssMb: round(mb(memory.rss)),
      hwmMb: round(mb(memory.hwm)),
      requests: totalRequests,
      errors: totalErrors,
      rps: now > lastAt ? round(((totalRequests - lastRequests) * 1000) / (now - lastAt)) : 0,
    };
    lastRequests = totalRequests;
    lastAt = now;
    samples.push(sample);
    console.log(
      `${String(sample.elapsedS).padStart(5)} s  RSS ${sample.rssMb.toFixed(1).padStart(7)} MB  ` +
        `${sample.requests} requests (${sample.rps}/s)  ${sample.errors} errors`,
    );
  };
  takeSample();
  const sampler = setInterval(takeSample, everyMs);
  return {
    stop() {
      clearInterval(sampler);
      takeSample();
      return samples;
    },
  };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg();
  const service = await startSoakService();
  traffic.baseUrl = service.process.url;
  process.once('exit', () => service.process.signal('SIGKILL'));

  try {
    console.log(`registering ${options.users} users`);
    await setupUsers(options.users);
    // Setup traffic is not part of the measured run.
    resetTraffic();

    const durationMs = options.minutes * 60_000;
    const t0 = performance.now();
    let deadline = t0 + durationMs;
    let stoppedEarly = false;
    process.once('SIGINT', () => {
      stoppedEarly = true;
      deadline = 0;
      console.log('\nstopping early (SIGINT)');
    });

    const sampler = sampleEvery(service.process.pid, t0, options.sampleMs);
    console.log(
      `running ${options.concurrency} clients for ${options.minutes} min (sampling every ${options.sampleMs / 1000} s)`,
    );
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (performance.now() < deadline) {
          await pickOperation()(pick(actors));
        }
      }),
    );
    const samples = sampler.stop();
    const elapsedMs = performance.now() - t0;

    // Graceful stop, as in production; killed after 30 s.
    const exit = await service.process.stop(30_000);

    const report = buildReport({
      startedAt,
      elapsedMs,
      stoppedEarly,
      databaseLabel: service.databaseLabel,
      samples,
      exitCode: String(exit.code ?? exit.signal),
      serviceErrors: service.errorLines,
      loadBefore,
      loadAfter: loadavg(),
      users: actors.length,
    });
    mkdirSync(dirname(options.out), { recursive: true });
    writeFileSync(options.out, report.markdown);
    console.log(`\n${report.summary}\nreport: ${relative(process.cwd(), options.out)}`);
    process.exitCode = report.ok ? 0 : 1;
  } finally {
    service.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
