import type { Redis } from 'ioredis';
import type { StatementPool } from '../../sql/connections';
import { type Lsn, parseLsn, formatLsn } from './lsn';

/**
 * Each caller's last write position, where every instance sees it: a caller's read on any
 * instance must see the caller's own writes, whether or not the client sends `X-Read-After` back
 * (legacy REST clients send nothing). Kept as long as a replica may lag (POSITION_TTL_MS); the
 * greater position wins when two writes of one caller race.
 */
export interface WritePositions {
  remember(caller: string, lsn: Lsn): Promise<void>;
  /** The caller's last write position (null: none lately). */
  recall(caller: string): Promise<Lsn | null>;
  close(): Promise<void>;
}

/** How long a position is kept: a replica further behind than this is skipped anyway. */
export const POSITION_TTL_MS = 60_000;

/** The table a migration makes for positions kept on the primary. */
export const READ_POSITIONS_TABLE = 'read_positions';

async function run(pool: StatementPool, text: string, values: unknown[]): Promise<unknown[][]> {
  const connection = await pool.connect();
  try {
    return (await connection.run({ text, values })).rows;
  } finally {
    connection.release();
  }
}

/** Positions in a table of the primary: one row per caller. */
export function primaryWritePositions(primary: StatementPool): WritePositions {
  return {
    async remember(caller, lsn) {
      await run(
        primary,
        `insert into "${READ_POSITIONS_TABLE}" ("caller", "lsn", "written_at") ` +
          `values ($1, $2::pg_lsn, now()) on conflict ("caller") do update set ` +
          `"lsn" = greatest("${READ_POSITIONS_TABLE}"."lsn", excluded."lsn"), "written_at" = now()`,
        [caller, formatLsn(lsn)],
      );
    },
    async recall(caller) {
      const rows = await run(
        primary,
        `select "lsn"::text from "${READ_POSITIONS_TABLE}" where "caller" = $1 ` +
          `and "written_at" > now() - make_interval(secs => $2::double precision / 1000)`,
        [caller, POSITION_TTL_MS],
      );
      return parseLsn(rows[0]?.[0] as string | undefined);
    },
    async close() {},
  };
}

/** A position as text that compares as the number does (16 hexadecimal digits). */
const sortable = (lsn: Lsn): string => lsn.toString(16).padStart(16, '0');

/** Keeps the greater of the stored and the given position, with the key's time to live renewed. */
const KEEP_GREATER =
  "local current = redis.call('GET', KEYS[1]) " +
  'if (not current) or current < ARGV[1] then ' +
  "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) " +
  "else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end " +
  'return 1';

/** Positions in Redis (REDIS_URL): one key per caller, expiring after POSITION_TTL_MS. */
export function redisWritePositions(redisUrl: string): WritePositions {
  // Loaded only when configured (see src/platform/auth/attempt-limiter.ts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
  const redis: Redis = new RedisClient(redisUrl, { maxRetriesPerRequest: 1 });
  // Its failures reach the callers (a read then goes to the primary); no stack on every retry.
  redis.on('error', () => undefined);
  const key = (caller: string) => `read-after:${caller}`;
  return {
    async remember(caller, lsn) {
      await redis.eval(KEEP_GREATER, 1, key(caller), sortable(lsn), POSITION_TTL_MS);
    },
    async recall(caller) {
      const value = await redis.get(key(caller));
      return value ? BigInt(`0x${value}`) : null;
    },
    async close() {
      redis.disconnect();
    },
  };
}
