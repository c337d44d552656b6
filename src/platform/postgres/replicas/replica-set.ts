import type { StatementConnection, StatementPool } from '../../sql/connections';
import { ServicePool } from '../pool';
import { formatLsn, type Lsn, parseLsn } from './lsn';

/** How often each instance reads the primary's position and every replica's. */
export const REPLICA_WATCH_MS = 500;

/** What an instance knows of one replica, as readiness detail and metrics show it. */
export interface ReplicaState {
  /** The replica's host and port (never its credentials). */
  name: string;
  healthy: boolean;
  /** How far behind the primary it is, in seconds (null: not known, e.g. unreachable). */
  lagSeconds: number | null;
  /** The position it has replayed (null: not known). */
  replayed: string | null;
  /** Why it is skipped, when it is. */
  problem: string | null;
}

/** One standby server: its pool and what was last seen of it. */
interface Replica {
  name: string;
  pool: ServicePool;
  replayed: Lsn | null;
  lagMs: number | null;
  problem: string | null;
}

/** The host and port of a database URL, for logs and metrics. */
function nameOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}`;
}

/** The first value of a statement's only row. */
async function scalar(pool: StatementPool, text: string): Promise<unknown[]> {
  const connection: StatementConnection = await pool.connect();
  try {
    const { rows } = await connection.run({ text });
    return rows[0] ?? [];
  } finally {
    connection.release();
  }
}

/**
 * The read replicas of DATABASE_READ_URLS, as one instance sees them. Every REPLICA_WATCH_MS it
 * reads the primary's write position and each replica's replay position. A replica's lag is how
 * long ago the primary first wrote past what the replica has replayed, from the positions seen in
 * the last `maxLagMs` (a replica that has replayed the primary's latest position is 0 s behind,
 * however idle the primary is); past `maxLagMs`, or unreachable, or not a standby, a replica is
 * skipped until it catches up.
 */
export class ReplicaSet {
  private readonly replicas: Replica[];
  /** The primary's positions seen lately, oldest first, with when they were seen. */
  private readonly primarySeen: Array<{ at: number; lsn: Lsn }> = [];
  /**
   * The primary's first position seen: how long ago it wrote what came before is not known, so
   * a replica that has not replayed this far is not used.
   */
  private firstSeen: Lsn | null = null;
  private timer: NodeJS.Timeout | null = null;
  private next = 0;
  private watching: Promise<void> = Promise.resolve();

  constructor(
    urls: readonly string[],
    private readonly primary: StatementPool,
    private readonly options: {
      maxLagMs: number;
      poolSize: number;
      timeoutMs?: number;
      log?: (message: string) => void;
    },
  ) {
    this.replicas = urls.map((url) => ({
      name: nameOf(url),
      pool: new ServicePool({
        url,
        max: options.poolSize,
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
        applicationName: 'meetings-reads',
        ...(options.log && { log: options.log }),
      }),
      replayed: null,
      lagMs: null,
      problem: 'not yet seen',
    }));
  }

  /** Starts watching; the first look is awaited, so reads may use replicas from the start. */
  async start(): Promise<void> {
    await this.look();
    this.timer = setInterval(() => {
      this.watching = this.look();
    }, REPLICA_WATCH_MS);
    this.timer.unref();
  }

  /**
   * The pool of a healthy replica that has replayed `after` (every replica in turn), or null:
   * none, and the primary must answer.
   */
  poolFor(after: Lsn | null): ServicePool | null {
    const count = this.replicas.length;
    for (let tried = 0; tried < count; tried += 1) {
      const replica = this.replicas[(this.next + tried) % count];
      if (
        replica &&
        replica.problem === null &&
        (after === null || (replica.replayed !== null && replica.replayed >= after))
      ) {
        this.next = (this.next + tried + 1) % count;
        return replica.pool;
      }
    }
    return null;
  }

  /**
   * A replica that failed a read (unreachable, or its answer an error the primary may not give,
   * such as a table it has not replayed yet): skipped until its next look finds it well.
   */
  failed(pool: ServicePool, error: unknown): void {
    const replica = this.replicas.find((candidate) => candidate.pool === pool);
    if (replica) {
      this.judge(
        replica,
        `failed a read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  states(): ReplicaState[] {
    return this.replicas.map((replica) => ({
      name: replica.name,
      healthy: replica.problem === null,
      lagSeconds: replica.lagMs === null ? null : replica.lagMs / 1000,
      replayed: replica.replayed === null ? null : formatLsn(replica.replayed),
      problem: replica.problem,
    }));
  }

  async stop(): Promise<void> {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
    await this.watching;
    await Promise.all(this.replicas.map((replica) => replica.pool.end()));
  }

  /** One look at the primary and every replica. */
  private async look(): Promise<void> {
    const now = Date.now();
    try {
      const [position] = await scalar(this.primary, 'select pg_current_wal_lsn()::text');
      const lsn = parseLsn(position as string);
      if (lsn !== null) {
        this.primarySeen.push({ at: now, lsn });
        this.firstSeen ??= lsn;
      }
    } catch {
      // The primary's own health is the database guard's; replicas are judged by what was seen.
    }
    while (
      this.primarySeen.length > 1 &&
      (this.primarySeen[0]?.at ?? now) < now - 2 * this.options.maxLagMs
    ) {
      this.primarySeen.shift();
    }
    await Promise.all(this.replicas.map((replica) => this.lookAt(replica, now)));
  }

  private async lookAt(replica: Replica, now: number): Promise<void> {
    try {
      const [inRecovery, position] = await scalar(
        replica.pool,
        'select pg_is_in_recovery(), pg_last_wal_replay_lsn()::text',
      );
      if (inRecovery !== true) {
        replica.lagMs = null;
        this.judge(replica, 'not a standby (pg_is_in_recovery() is false)');
        return;
      }
      replica.replayed = parseLsn(position as string);
      replica.lagMs = this.lagOf(replica.replayed, now);
      this.judge(
        replica,
        replica.lagMs === null
          ? 'not yet known to have replayed what the primary had written when watching began'
          : replica.lagMs > this.options.maxLagMs
            ? `behind the primary by more than ${this.options.maxLagMs} ms`
            : null,
      );
    } catch (error) {
      replica.lagMs = null;
      this.judge(replica, `unreachable: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Sets what is wrong with a replica (null: nothing), telling when it is skipped or used again. */
  private judge(replica: Replica, problem: string | null): void {
    const was = replica.problem;
    replica.problem = problem;
    if ((was === null) !== (problem === null)) {
      this.options.log?.(
        problem === null
          ? `read replica ${replica.name} in use`
          : `read replica ${replica.name} skipped: ${problem}`,
      );
    }
  }

  /** How long ago the primary first wrote past `replayed`, by the positions seen lately. */
  private lagOf(replayed: Lsn | null, now: number): number | null {
    if (replayed === null || this.firstSeen === null || replayed < this.firstSeen) {
      return null;
    }
    const firstAhead = this.primarySeen.find((seen) => seen.lsn > replayed);
    return firstAhead ? now - firstAhead.at : 0;
  }
}
