import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { type BudgetState, CostBudgetSpentError } from '../shared/errors';

/** A budget is a minute's. */
const WINDOW_SECONDS = 60;

/**
 * What each caller may spend on GraphQL operations a minute (COST_BUDGET_PER_MINUTE), counted in
 * memory or, with REDIS_URL, in Redis so that every instance draws on one budget per caller
 * (rate-limiter-flexible, as the sign-in limits: a fixed window from the first spending). An
 * operation pays its measured cost before it runs and is refunded what it did not use.
 */
export class CostBudget {
  private constructor(
    private readonly limiter: RateLimiterAbstract,
    readonly limit: number,
  ) {}

  /** `redis`: the instances' shared counters (openLimiterRedis), null to count in memory. */
  static create(perMinute: number, redis: Redis | null): CostBudget {
    const memory = () =>
      new RateLimiterMemory({ points: perMinute, duration: WINDOW_SECONDS, keyPrefix: 'cost' });
    if (!redis) {
      return new CostBudget(memory(), perMinute);
    }
    const limiter = new RateLimiterRedis({
      storeClient: redis,
      points: perMinute,
      duration: WINDOW_SECONDS,
      keyPrefix: 'rl:cost',
      // A brief Redis outage falls back to per-instance budgets rather than refusing everyone.
      insuranceLimiter: memory(),
    });
    return new CostBudget(limiter, perMinute);
  }

  /**
   * Takes `cost` from `caller`'s budget and answers what remains; throws CostBudgetSpentError
   * (nothing taken) when what remains cannot pay for it.
   */
  async spend(caller: string, cost: number): Promise<BudgetState> {
    try {
      return this.stateOf(await this.limiter.consume(caller, cost));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        throw rejection;
      }
      // The limiter counts a refused spending too: given back, so that what remains still pays
      // for a smaller operation.
      this.refund(caller, cost);
      const spent = rejection.consumedPoints - cost;
      throw new CostBudgetSpentError(cost, {
        ...this.stateOf(rejection),
        remaining: Math.max(0, this.limit - spent),
      });
    }
  }

  /** Gives back what an operation paid for and did not use (not waited for). */
  refund(caller: string, cost: number): void {
    if (cost > 0) {
      this.limiter.reward(caller, cost).catch(() => undefined);
    }
  }

  private stateOf(res: RateLimiterRes): BudgetState {
    return {
      limit: this.limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    };
  }
}
