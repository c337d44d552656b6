import pg from 'pg';

/**
 * A `pg` pool that counts the statements PostGraphile sends, as the baseline counts its own:
 * `statements` leaves out transaction control (BEGIN/COMMIT/ROLLBACK), `transactionControl`
 * counts it.
 */

const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback)\b/i;

export interface StatementCounts {
  statements: number;
  transactionControl: number;
}

type Query = (...args: unknown[]) => unknown;

function textOf(config: unknown): string {
  if (typeof config === 'string') {
    return config;
  }
  const text = (config as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : '';
}

export function countingPool(
  connectionString: string,
  max: number,
): { pool: pg.Pool; counts: StatementCounts } {
  const counts: StatementCounts = { statements: 0, transactionControl: 0 };
  const pool = new pg.Pool({ connectionString, max });
  pool.on('connect', (client) => {
    const target = client as unknown as { query: Query };
    const query = target.query.bind(client) as Query;
    target.query = (...args: unknown[]): unknown => {
      if (TRANSACTION_CONTROL.test(textOf(args[0]))) {
        counts.transactionControl += 1;
      } else {
        counts.statements += 1;
      }
      return query(...args);
    };
  });
  return { pool, counts };
}
