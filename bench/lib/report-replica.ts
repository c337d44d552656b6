import { int, ms, ratio } from './format';
import type { ServerStatements } from '../run/replica-statements';
import type { ReplicaKey } from './scenarios';
import type { Summary } from './stats';

/** What the --replica pass found (run/replica-pass.ts). */
export interface ReplicaReport {
  /** The pair: its PostgreSQL version, the primary's and the replica's host:port. */
  pair: { version: string; primary: string; replica: string };
  /** The run's database copied into the pair's primary (pg_dump | psql, then VACUUM ANALYZE). */
  copy: { from: string; sizeBytes: number; seconds: number; catchUpSeconds: number };
  /** The whole pass: the pair's start, the copy, both targets and every scenario's runs. */
  seconds: number;
  /** The service's log level during the runs (as the main pass's). */
  logLevel: 'info' | 'warn';
  rows: {
    key: ReplicaKey;
    title: string;
    service: Summary;
    baseline: Summary;
    /**
     * The service's `db_reads_total` over the scenario's runs (warm-ups included), by target:
     * statements of query operations outside transactions, by the server that answered them.
     */
    reads: { primary: number; replica: number };
    /** Statements per request on each server, from the counting start (run/replica-statements.ts). */
    statements: ServerStatements;
  }[];
}

const TITLE = '## Reads with one replica';

/** Statements per request, counted over many requests less an idle rate: one decimal. */
const perRequest = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');

/** `replica` of `primary + replica` as a percentage with the counts; '–' when nothing was read. */
export function replicaShare(reads: { primary: number; replica: number }): string {
  const total = reads.primary + reads.replica;
  return total > 0
    ? `${((100 * reads.replica) / total).toFixed(1)}% (${int(reads.replica)} of ${int(total)})`
    : '– (no reads counted)';
}

/** Wrong answers and errors of a summary, or 'none'. */
function failures(summary: Summary): string {
  const entries = Object.entries(summary.failures);
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k}: ${v}`).join(', ');
}

/** The --replica section of the report: per scenario, req/s of both, the ratio, the replica's share. */
export function replicaSection(replica: ReplicaReport): string[] {
  const { pair, copy, rows } = replica;
  return [
    TITLE,
    '',
    `\`--replica\`: a PostgreSQL ${pair.version} primary (${pair.primary}) and one streaming replica ` +
      `(${pair.replica}) of their own, made for the run by \`test/helpers/streaming-replica.ts\` ` +
      '(apply delay 0, `fsync = off`, otherwise default settings), the primary loaded with a copy of ' +
      `\`${copy.from}\` (${int(copy.sizeBytes / 1048576)} MiB; \`pg_dump | psql\` and VACUUM ANALYZE ` +
      `${copy.seconds.toFixed(1)} s, the replica caught up ${copy.catchUpSeconds.toFixed(1)} s later). ` +
      'The service ran with `DATABASE_URL` the primary and `DATABASE_READ_URLS` the replica ' +
      `(LOG_LEVEL=${replica.logLevel}), the baseline on the primary (it has no replicas), timed as ` +
      "above. Reads: the service's `db_reads_total` (statements of query operations outside " +
      'transactions, by the server that answered them) from its metrics before and after each ' +
      `scenario's runs, warm-ups included. The pass took ${Math.round(replica.seconds)} s.`,
    '',
    "Both servers share the machine's cores with everything else: here a replica adds no " +
      'capacity, so the ratio shows what reading from one costs, not what a replica on a host of ' +
      'its own would give.',
    '',
    '| scenario | req/s service | req/s baseline | req/s ratio | reads on replica / reads total |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.title} | ${int(row.service.rps)} | ${int(row.baseline.rps)} | ` +
        `**${ratio(row.service.rps, row.baseline.rps)}** | ${replicaShare(row.reads)} |`,
    ),
    '',
    "Where a request's statements went, from a start of the service of its own behind a counting " +
      'proxy on each server (`lib/statement-proxy.ts`), where the answers of every scenario were ' +
      "also checked byte-for-byte equal to the baseline's: each scenario's requests one at a time " +
      '(at least 40, and 1 s), less what the idle service sends meanwhile (the replica watcher, the ' +
      "job queue's polls); BEGIN/COMMIT not counted. Per request: the service's own count " +
      "(`sqlStatements`, the ORM's statements, as in the tables above), what `db_reads_total` " +
      'counted, and what each server ran. What `db_reads_total` does not count stays on the ' +
      "primary: the caller's sign-in check, outside the operation, and for a signed-in caller the " +
      'lookup of its last write position (`read_positions` without `REDIS_URL`; not an ORM ' +
      "statement, so not in the service's count).",
    '',
    '| scenario | SQL statements per request (service) | of them reads (db_reads_total) | on the replica | on the primary |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      ({ title, statements: st }) =>
        `| ${title} | ${perRequest(st.logged)} | ${perRequest(st.reads)} | ` +
        `${perRequest(st.replica)} | ${perRequest(st.primary)} |`,
    ),
    '',
    'PostgreSQL CPU is that of every PostgreSQL process on the machine (the pair, the shared ' +
      'server and any other), and "other processes" counts none of them, as in the tables above.',
    '',
    '| scenario | p50 ms service | p50 ms baseline | p99 ms service | p99 ms baseline | CPU ms/req service | CPU ms/req baseline | PostgreSQL CPU ms/req service | PostgreSQL CPU ms/req baseline | wrong answers / errors (service; baseline) | other processes, cores (service; baseline runs) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
    ...rows.map(
      ({ title, service: sv, baseline: bl }) =>
        `| ${title} | ${ms(sv.p50)} | ${ms(bl.p50)} | ${ms(sv.p99)} | ${ms(bl.p99)} | ` +
        `${ms(sv.cpuPerRequest)} | ${ms(bl.cpuPerRequest)} | ${ms(sv.databaseCpuPerRequest)} | ` +
        `${ms(bl.databaseCpuPerRequest)} | ${failures(sv)}; ${failures(bl)} | ` +
        `${sv.contention.toFixed(2)}; ${bl.contention.toFixed(2)} |`,
    ),
  ];
}
