import { appendFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

/**
 * What the service's resident memory is made of at its peaks, for bench/results/peak-memory.md.
 * Bench only, never loaded by the service itself: preloaded into it with
 * `--service-env NODE_OPTIONS=--require=<repo>/dist/bench/memory-sampler.js,MEMORY_SAMPLES_FILE=<file>`.
 * Every SAMPLE_MS it reads process.memoryUsage() and V8's heap spaces; once a second it appends the
 * sample of that second with the largest RSS to MEMORY_SAMPLES_FILE as a JSON line (with the wall
 * time, to be matched with the scenarios' times). Reading them costs microseconds; the timer is
 * unref'd, so it keeps nothing alive.
 */

const SAMPLE_MS = 25;
const WRITE_MS = 1000;

interface Sample {
  /** Wall time, epoch milliseconds. */
  at: number;
  pid: number;
  /** The script the process runs (tells the builds of an A/B apart). */
  script: string;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** Per V8 heap space: resident (physical) and used bytes. */
  spaces: Record<string, { physical: number; used: number }>;
}

function sample(): Sample {
  const usage = process.memoryUsage();
  const spaces: Sample['spaces'] = {};
  for (const space of getHeapSpaceStatistics()) {
    spaces[space.space_name] = {
      physical: space.physical_space_size,
      used: space.space_used_size,
    };
  }
  return { at: Date.now(), pid: process.pid, script: process.argv[1] ?? '', ...usage, spaces };
}

const file = process.env['MEMORY_SAMPLES_FILE'];
if (file) {
  let peak: Sample | null = null;
  setInterval(() => {
    // memoryUsage.rss() alone is cheap; the whole sample only when it is a new peak of the second.
    const rss = process.memoryUsage.rss();
    if (peak === null || rss > peak.rss) {
      peak = sample();
    }
  }, SAMPLE_MS).unref();
  setInterval(() => {
    if (peak !== null) {
      appendFileSync(file, `${JSON.stringify(peak)}\n`);
      peak = null;
    }
  }, WRITE_MS).unref();
}
