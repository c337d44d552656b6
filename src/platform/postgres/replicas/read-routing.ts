import type { Statement, StatementConnection, StatementPool } from '../../sql/connections';
import { currentRequest, type RequestScope } from '../../observability/request-tracking';
import type { ServicePool } from '../pool';
import { isDeadlineReached } from '../request-deadline';
import { formatLsn, laterLsn, type Lsn, parseLsn } from './lsn';
import { ReplicaSet } from './replica-set';
import type { ReplicaConfig } from './replica.settings';
import { primaryWritePositions, redisWritePositions, type WritePositions } from './write-positions';

/** Where a read went, for the metrics. */
export type ReadTarget = 'primary' | 'replica';

/** Past every position: a request whose caller's last write is unknown reads from the primary. */
const UNKNOWN: Lsn = 1n << 64n;

/** The position each request must read at least, once known (its header and its caller's last write). */
const required = new WeakMap<RequestScope, Promise<Lsn | null>>();

/**
 * A replica's connection that answers from the primary when the replica fails it (down, cut off,
 * or cancelling the statement for a conflict with recovery): a read may run twice, never answers
 * 5xx because a replica went away. A request's deadline is not retried.
 */
class FallbackConnection implements StatementConnection {
  constructor(
    private readonly replica: StatementConnection,
    private readonly answered: () => void,
    private readonly onFailure: (error: unknown) => Promise<StatementConnection>,
  ) {}

  async run(statement: Statement) {
    try {
      const result = await this.replica.run(statement);
      this.answered();
      return result;
    } catch (error) {
      if (isDeadlineReached(error)) {
        throw error;
      }
      const primary = await this.onFailure(error);
      try {
        return await primary.run(statement);
      } finally {
        primary.release();
      }
    }
  }

  release(): void {
    this.replica.release();
  }
}

/**
 * The statement pool of the request ORM when DATABASE_READ_URLS names replicas. Writes,
 * transactions and every statement of a mutation go to the primary (`connect`); the reads of a
 * query operation outside a transaction (`connectForRead`) go to a healthy replica that has
 * replayed what the caller must see: the position the client sent back (`X-Read-After`) and the
 * position of the caller's own last write (WritePositions), whichever is later. Otherwise, the
 * primary.
 */
export class ReadRouting implements StatementPool {
  readonly namedStatements: boolean;
  /** Statements of query operations so far, by who answered them (the metric db_reads_total). */
  readonly counts: Record<ReadTarget, number> = { primary: 0, replica: 0 };

  constructor(
    private readonly primary: ServicePool,
    readonly replicas: ReplicaSet,
    private readonly positions: WritePositions,
  ) {
    this.namedStatements = primary.namedStatements;
  }

  async close(): Promise<void> {
    await this.replicas.stop();
    await this.positions.close();
  }

  private counted(target: ReadTarget): void {
    this.counts[target] += 1;
  }

  connect(): Promise<StatementConnection> {
    return this.primary.connect();
  }

  async connectForRead(): Promise<StatementConnection> {
    const scope = currentRequest();
    if (!scope?.readOnly) {
      return this.primary.connect();
    }
    const pool = this.replicas.poolFor(await this.requiredBy(scope));
    if (!pool) {
      this.counted('primary');
      return this.primary.connect();
    }
    let connection: StatementConnection;
    try {
      connection = await pool.connect();
    } catch (error) {
      if (isDeadlineReached(error)) {
        throw error;
      }
      this.replicas.failed(pool, error);
      this.counted('primary');
      return this.primary.connect();
    }
    return new FallbackConnection(
      connection,
      () => this.counted('replica'),
      async (error) => {
        this.replicas.failed(pool, error);
        this.counted('primary');
        return this.primary.connect();
      },
    );
  }

  /**
   * The write position to answer the current request's write with (`X-Read-After`): the
   * primary's position now that its writes committed, remembered as its caller's, so that the
   * caller's next reads, on any instance, see them. Null when the primary could not tell it: the
   * write stands, and the caller's reads go by the position remembered before.
   */
  async positionAfterWrite(): Promise<string | null> {
    try {
      return await this.wrote();
    } catch {
      return null;
    }
  }

  private async wrote(): Promise<string> {
    const connection = await this.primary.connect();
    let lsn: Lsn | null;
    try {
      const { rows } = await connection.run({ text: 'select pg_current_wal_lsn()::text' });
      lsn = parseLsn(rows[0]?.[0] as string);
    } finally {
      connection.release();
    }
    if (lsn === null) {
      throw new Error('pg_current_wal_lsn() answered no position');
    }
    const scope = currentRequest();
    if (scope?.userId) {
      await this.positions.remember(scope.userId, lsn);
      required.delete(scope);
    }
    return formatLsn(lsn);
  }

  private requiredBy(scope: RequestScope): Promise<Lsn | null> {
    let after = required.get(scope);
    if (!after) {
      const sent = parseLsn(scope.readAfter);
      after = scope.userId
        ? this.positions.recall(scope.userId).then(
            (own) => laterLsn(sent, own),
            () => UNKNOWN,
          )
        : Promise.resolve(sent);
      required.set(scope, after);
    }
    return after;
  }
}

/**
 * Reads through `replicas.urls` (watched from now on) for the request ORM on `primary`, with
 * callers' write positions in Redis when `redisUrl` is set, else in a table of the primary.
 */
export async function readRouting(
  primary: ServicePool,
  replicas: ReplicaConfig,
  options: {
    poolSize: number;
    redisUrl: string | null;
    timeoutMs?: number;
    log?: (message: string) => void;
  },
): Promise<ReadRouting> {
  const set = new ReplicaSet(replicas.urls, primary, { ...options, maxLagMs: replicas.maxLagMs });
  await set.start();
  const positions = options.redisUrl
    ? redisWritePositions(options.redisUrl)
    : primaryWritePositions(primary);
  return new ReadRouting(primary, set, positions);
}
