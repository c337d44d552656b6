import type { PoolState } from '../observability/metrics';

/**
 * Whether the connection pool is stuck: every connection taken, and requests running out of
 * their budget (waiting for a connection, or for a statement on one), one after another with no
 * gap as long as the budget, for longer than the budget. Readiness answers 503 then, so a
 * balancer sends requests elsewhere. A pool merely busy under a heavy, healthy load is as full,
 * but its requests are answered within their budget; and once a connection is free again (a
 * lock released), readiness is back at once.
 */
export class PoolSaturation {
  /** When requests began running out of budget, and when one last did. */
  private failingSince: number | null = null;
  private lastFailure = -Infinity;

  constructor(
    private readonly pool: () => PoolState,
    private readonly budgetMs: number,
  ) {}

  /** A request ran out of budget waiting for the database. */
  readonly deadlineReached = (): void => {
    const now = performance.now();
    if (this.failingSince === null || now - this.lastFailure > this.budgetMs) {
      this.failingSince = now;
    }
    this.lastFailure = now;
  };

  /** Every connection in use or being opened. */
  private allTaken(): boolean {
    const { free, used, max } = this.pool();
    return free === 0 && used >= max;
  }

  /** True while the pool has been stuck for longer than the budget. */
  stuck(): boolean {
    const now = performance.now();
    return (
      this.failingSince !== null &&
      now - this.lastFailure <= this.budgetMs &&
      now - this.failingSince > this.budgetMs &&
      this.allTaken()
    );
  }
}
