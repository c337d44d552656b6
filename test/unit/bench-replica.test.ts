import { parseOptions, UsageError } from '../../bench/lib/options';
import { type ReplicaReport, replicaSection, replicaShare } from '../../bench/lib/report-replica';
import type { Summary } from '../../bench/lib/stats';

// `npm run bench -- --replica`: when the option is taken, and the section of the report it makes.

const DB = ['--database-url', 'postgres://postgres@127.0.0.1:5432/bench'];

const options = (...args: string[]) => {
  const parsed = parseOptions([...DB, ...args]);
  if (parsed === 'help') {
    throw new Error('help');
  }
  return parsed;
};

/** A run answering `rps` per second. */
const summary = (rps: number): Summary => ({
  rps,
  roundRps: [rps],
  p50: 10,
  p99: 40,
  mean: 12,
  responses: rps,
  failures: {},
  peakRss: 0,
  contention: 0.1,
  cpuPerRequest: 2,
  databaseCpuPerRequest: 1,
});

describe('the --replica option', () => {
  it('is off unless given, and runs with the read scenarios', () => {
    expect(options().replica).toBe(false);
    expect(options('--quick', '--replica').replica).toBe(true);
    expect(options('--replica', '--scenarios', 'search,writes').replica).toBe(true);
  });

  it('is refused when it could not run', () => {
    expect(() => options('--replica', '--scenarios', 'writes,calendar-feed')).toThrow(UsageError);
    expect(() => options('--replica', '--against', 'HEAD~1')).toThrow(UsageError);
    expect(() => options('--replica', '--profile', 'search')).toThrow(UsageError);
    expect(() => options('--replica', '--service-env', 'METRICS=false')).toThrow(UsageError);
  });
});

describe('the report of --replica', () => {
  it("gives the replica's share of the reads db_reads_total counted", () => {
    expect(replicaShare({ primary: 1, replica: 3 })).toBe('75.0% (3 of 4)');
    expect(replicaShare({ primary: 0, replica: 1234 })).toBe('100.0% (1,234 of 1,234)');
    expect(replicaShare({ primary: 0, replica: 0 })).toBe('– (no reads counted)');
  });

  it('has a row per scenario: req/s of both, the ratio, the share, statements per server', () => {
    const report: ReplicaReport = {
      pair: { version: '15.20', primary: '127.0.0.1:5001', replica: '127.0.0.1:5002' },
      copy: { from: 'bench_10k', sizeBytes: 70 * 1048576, seconds: 3.5, catchUpSeconds: 0.2 },
      seconds: 50,
      logLevel: 'info',
      rows: [
        {
          key: 'following',
          title: '5. REST following',
          service: summary(500),
          baseline: summary(1000),
          reads: { primary: 10, replica: 990 },
          statements: { primary: 2, replica: 1, reads: 1, logged: 2 },
        },
      ],
    };
    const lines = replicaSection(report);
    expect(lines[0]).toBe('## Reads with one replica');
    expect(lines).toContain(
      '| scenario | req/s service | req/s baseline | req/s ratio | reads on replica / reads total |',
    );
    expect(lines).toContain(
      '| 5. REST following | 500 | 1,000 | **0.50×** | 99.0% (990 of 1,000) |',
    );
    expect(lines).toContain('| 5. REST following | 2.0 | 1.0 | 1.0 | 2.0 |');
  });
});
