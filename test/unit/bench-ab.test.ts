import { withoutCost } from '../../bench/run/equality';
import { compareBuilds, roundOrder, type RunNumbers } from '../../bench/lib/ab';

// The A/B summary (`npm run bench -- --against <ref>`): each round's B ÷ A, their geometric mean
// and range, and a difference called only when every round agrees.

/** A run of `seconds` seconds answering `rps` per second (all 2xx) at `cpuMs` CPU per response. */
const run = (rps: number, cpuMs: number, seconds = 2): RunNumbers => ({
  ok: rps * seconds,
  responses: rps * seconds,
  seconds,
  targetCpuMs: cpuMs * rps * seconds,
});

describe('the A/B comparison', () => {
  it('gives B ÷ A of req/s and of CPU per request, round by round and their geometric mean', () => {
    const a = [run(100, 4), run(200, 4)];
    const b = [run(110, 3), run(180, 3.6)];
    const c = compareBuilds(a, b);
    expect(c.rps.rounds.map((r) => r.toFixed(2))).toEqual(['1.10', '0.90']);
    expect(c.rps.min).toBeCloseTo(0.9);
    expect(c.rps.max).toBeCloseTo(1.1);
    expect(c.rps.mean).toBeCloseTo(Math.sqrt(1.1 * 0.9));
    expect(c.cpu.rounds.map((r) => r.toFixed(2))).toEqual(['0.75', '0.90']);
    expect(c.cpuMs.a).toBeCloseTo(4);
    expect(c.cpuMs.b).toBeCloseTo((3 * 220 + 3.6 * 360) / 580);
    expect(c.cpu.mean).toBeCloseTo(Math.sqrt(0.75 * 0.9));
  });

  it('calls a difference only when every round points the same way', () => {
    const faster = compareBuilds([run(100, 4), run(90, 4)], [run(120, 3), run(95, 3.9)]);
    expect(faster.reading).toBe('B faster, B cheaper in every round');
    const mixed = compareBuilds([run(100, 4), run(90, 4)], [run(120, 5), run(80, 3)]);
    expect(mixed.reading).toBe('within the noise');
    const dearer = compareBuilds([run(100, 2), run(100, 2)], [run(100, 3), run(100, 2.5)]);
    expect(dearer.reading).toBe('B dearer in every round');
  });

  it('does not call a difference of less than 3%, nor one seen in a single round', () => {
    const slight = compareBuilds([run(100, 2), run(100, 2)], [run(101, 2.02), run(102, 2.03)]);
    expect(slight.rps.min).toBeGreaterThan(1);
    expect(slight.reading).toBe('within the noise');
    expect(compareBuilds([run(100, 2)], [run(150, 1)]).reading).toBe('within the noise');
  });

  it('has no CPU ratio for runs without a CPU reading, and refuses rounds that do not pair', () => {
    const noCpu = { ok: 10, responses: 10, seconds: 1 };
    const c = compareBuilds([noCpu], [noCpu]);
    expect(c.rps.mean).toBe(1);
    expect(Number.isNaN(c.cpu.mean)).toBe(true);
    expect(c.reading).toBe('within the noise');
    expect(() => compareBuilds([run(1, 1)], [])).toThrow(/pair up/);
  });

  it('runs A and B back to back in every round, each first in half of them', () => {
    expect([1, 2, 3, 4].map(roundOrder)).toEqual([
      ['A', 'B', 'baseline'],
      ['baseline', 'B', 'A'],
      ['A', 'B', 'baseline'],
      ['baseline', 'B', 'A'],
    ]);
  });
});

describe("the equality pass's view of a GraphQL answer", () => {
  it('compares it without the cost the service tells, and nothing else of it', () => {
    const data = '{"data":{"me":{"id":"1"}}';
    expect(withoutCost(`${data},"extensions":{"cost":{"requested":1,"actual":1}}}\n`)).toBe(
      `${data}}\n`,
    );
    expect(
      withoutCost(`${data},"extensions":{"readAfter":"0/1","cost":{"requested":12,"actual":12}}}`),
    ).toBe(`${data},"extensions":{"readAfter":"0/1"}}`);
    expect(withoutCost(`${data}}\n`)).toBe(`${data}}\n`);
  });
});
