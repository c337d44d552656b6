import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { DependencyState } from '../observability/dependency-state';
import { PoolSaturation } from './pool-saturation';
import { boundByRequestDeadline, type KnexClientInternals } from './request-deadline';

/** What the service watches of its database while it runs. */
export interface DatabaseGuard {
  /** Whether the pool has been stuck (saturated, requests running out of budget) too long. */
  poolStuck(): boolean;
}

/**
 * Puts a request's waits for the database under its deadline, watches the pool's saturation for
 * readiness, and logs the database going down (connections cannot be opened) and coming back
 * once each, however many requests try in between.
 */
export function guardDatabase(
  orm: MikroORM,
  requestTimeoutMs: number,
  logger: Logger,
): DatabaseGuard {
  const client = orm.em.getConnection().getKnex().client as unknown as KnexClientInternals;
  const pool = client.pool;
  if (!pool) {
    return { poolStuck: () => false };
  }
  const saturation = new PoolSaturation(pool, requestTimeoutMs);
  boundByRequestDeadline(client, saturation.deadlineReached);
  const state = new DependencyState('database', logger);
  pool.on('createFail', (_id, error) => state.failed(error));
  pool.on('createSuccess', () => state.recovered());
  return { poolStuck: () => saturation.stuck() };
}
