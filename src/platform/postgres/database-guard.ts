import type { Logger } from 'pino';
import { DependencyState } from '../observability/dependency-state';
import type { ServicePool } from './pool';
import { PoolSaturation } from './pool-saturation';

/** What the service watches of its database while it runs. */
export interface DatabaseGuard {
  /** Whether the pool has been stuck (saturated, requests running out of budget) too long. */
  poolStuck(): boolean;
}

/**
 * Watches the pool's saturation for readiness (each wait a request's deadline ended, see
 * src/platform/postgres/request-deadline.ts), and logs the database going down (connections
 * cannot be opened) and coming back once each, however many requests try in between.
 */
export function guardDatabase(
  pool: ServicePool,
  requestTimeoutMs: number,
  logger: Logger,
): DatabaseGuard {
  const saturation = new PoolSaturation(() => pool.state(), requestTimeoutMs);
  const state = new DependencyState('database', logger);
  pool.watchWith({
    deadlineReached: saturation.deadlineReached,
    connectFailed: (error) => state.failed(error),
    connected: () => state.recovered(),
  });
  return { poolStuck: () => saturation.stuck() };
}
