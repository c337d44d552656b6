import type { LoadResult } from './protocol';

// The numbers of an A/B run (`--against <ref>`): build B (the working tree) against build A (the
// ref), round by round. Each round runs A and B back to back, so a round's ratio is what survives
// the machine's drift between rounds; the spread of those ratios is what the noise was.

/** What one timed run of one build contributes to the comparison. */
export type RunNumbers = Pick<LoadResult, 'ok' | 'seconds' | 'responses' | 'targetCpuMs'>;

/** A ratio B ÷ A over all rounds, with each round's own ratio. */
export interface Spread {
  /**
   * The geometric mean of the rounds' ratios: always between the least and the greatest, which a
   * ratio of totals is not (a fast round weighs more in the totals of the side it was fast for).
   */
  mean: number;
  /** B ÷ A of each round, in round order. */
  rounds: number[];
  min: number;
  max: number;
}

/** How B compares with A on one scenario. */
export interface AbComparison {
  /** 2xx responses per second, B ÷ A (above 1: B is faster). */
  rps: Spread;
  /** Node CPU per response, B ÷ A (below 1: B costs less). */
  cpu: Spread;
  /** Node CPU per response (ms) of each build over all its rounds. */
  cpuMs: { a: number; b: number };
  /**
   * `B faster`/`B slower` (req/s), `B cheaper`/`B dearer` (CPU) only when two or more rounds all
   * agree and their mean is off 1 by {@link LEAST_CALLED} or more; else `within the noise`.
   */
  reading: string;
}

const rpsOf = (runs: readonly RunNumbers[]): number => {
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  return seconds > 0 ? runs.reduce((n, r) => n + r.ok, 0) / seconds : Number.NaN;
};

const cpuOf = (runs: readonly RunNumbers[]): number => {
  const responses = runs.reduce((n, r) => n + r.responses, 0);
  return responses > 0
    ? runs.reduce((n, r) => n + (r.targetCpuMs ?? Number.NaN), 0) / responses
    : Number.NaN;
};

function spread(
  a: readonly RunNumbers[],
  b: readonly RunNumbers[],
  of: (runs: readonly RunNumbers[]) => number,
): Spread {
  const rounds = a.map((run, i) => {
    const other = b[i];
    return other ? of([other]) / of([run]) : Number.NaN;
  });
  const finite = rounds.filter((r) => Number.isFinite(r) && r > 0);
  if (finite.length === 0) {
    return { mean: Number.NaN, rounds, min: Number.NaN, max: Number.NaN };
  }
  return {
    mean: Math.exp(finite.reduce((n, r) => n + Math.log(r), 0) / finite.length),
    rounds,
    min: Math.min(...finite),
    max: Math.max(...finite),
  };
}

/**
 * The least difference called (3%): below it, the rounds of one build differ from each other by
 * as much on this machine (the same build's CPU per request moves by 1-2% from run to run).
 */
export const LEAST_CALLED = 0.03;

/** Which way every round points, if there are two or more, they all agree, and by enough. */
function direction(s: Spread, above: string, below: string): string | null {
  if (s.rounds.length < 2 || s.rounds.some((r) => !Number.isFinite(r))) {
    return null;
  }
  if (Math.abs(s.mean - 1) < LEAST_CALLED) {
    return null;
  }
  return s.min > 1 ? above : s.max < 1 ? below : null;
}

/** B against A on one scenario; `a[i]` and `b[i]` are round i + 1 of each build. */
export function compareBuilds(a: readonly RunNumbers[], b: readonly RunNumbers[]): AbComparison {
  if (a.length !== b.length) {
    throw new Error(`A ran ${a.length} rounds and B ${b.length}: they must pair up`);
  }
  const rps = spread(a, b, rpsOf);
  const cpu = spread(a, b, cpuOf);
  const readings = [
    direction(rps, 'B faster', 'B slower'),
    direction(cpu, 'B dearer', 'B cheaper'),
  ].filter((r): r is string => r !== null);
  return {
    rps,
    cpu,
    cpuMs: { a: cpuOf(a), b: cpuOf(b) },
    reading: readings.length > 0 ? `${readings.join(', ')} in every round` : 'within the noise',
  };
}

export type AbSide = 'A' | 'B' | 'baseline';

/**
 * The order of round `round` (from 1): A, B, baseline, then mirrored. A and B always run back to
 * back, so their ratio is taken on the same machine; each goes first in half the rounds.
 */
export const roundOrder = (round: number): readonly AbSide[] =>
  round % 2 === 1 ? ['A', 'B', 'baseline'] : ['baseline', 'B', 'A'];
