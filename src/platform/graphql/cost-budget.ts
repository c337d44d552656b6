import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { type BudgetState, CostBudgetSpentError, REFUSALS_IN_A_ROW } from '../shared/errors';

/** A budget is a minute's. */
const WINDOW_SECONDS = 60;

/** Callers whose refusals and blocks are remembered, per instance, at the most. */
const REMEMBERED_CALLERS = 100_000;

/**
 * What each caller may spend on GraphQL operations a minute (COST_BUDGET_PER_MINUTE), counted in
 * memory or, with REDIS_URL, in Redis so that every instance draws on one budget per caller
 * (rate-limiter-flexible, as the sign-in limits: a fixed window from the first spending). An
 * operation pays its measured cost before it runs and is refunded what it did not use.
 */
export class CostBudget {
  /** Refusals in a row, by caller, within a budget's window. */
  private readonly refusals = new LRUCache<string, number>({
    max: REMEMBERED_CALLERS,
    ttl: WINDOW_SECONDS * 1000,
  });
  /** Callers refused at once, each until its budget is whole again. */
  private readonly blocks = new LRUCache<string, { remaining: number; until: number }>({
    max: REMEMBERED_CALLERS,
  });

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
    let paid: RateLimiterRes;
    try {
      paid = await this.limiter.consume(caller, cost);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        throw rejection;
      }
      // The limiter counts a refused spending too: given back, so that what remains still pays
      // for a smaller operation.
      this.refund(caller, cost);
      const spent = rejection.consumedPoints - cost;
      const state = { ...this.stateOf(rejection), remaining: Math.max(0, this.limit - spent) };
      this.refused(caller, state);
      throw new CostBudgetSpentError(cost, state);
    }
    this.refusals.delete(caller);
    return this.stateOf(paid);
  }

  /**
   * Where a caller refused at once stands, else null. A refusal costs nearly what an operation's
   * start does (its document parsed, validated and measured, the caller read): a client that
   * goes on sending after REFUSALS_IN_A_ROW refusals in a row, as fast as it is answered,
   * would take the instance's time from everyone else's. Per instance; the budget itself is
   * shared.
   */
  blocked(caller: string): BudgetState | null {
    const block = this.blocks.get(caller);
    const left = block ? block.until - Date.now() : 0;
    if (!block || left <= 0) {
      return null;
    }
    return { limit: this.limit, remaining: block.remaining, resetSeconds: Math.ceil(left / 1000) };
  }

  private refused(caller: string, state: BudgetState): void {
    const inARow = (this.refusals.get(caller) ?? 0) + 1;
    this.refusals.set(caller, inARow);
    if (inARow >= REFUSALS_IN_A_ROW) {
      const until = Date.now() + state.resetSeconds * 1000;
      this.blocks.set(
        caller,
        { remaining: state.remaining, until },
        { ttl: state.resetSeconds * 1000 },
      );
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

/**
 * A budget's state in the headers of the IETF's RateLimit fields draft
 * (draft-ietf-httpapi-ratelimit-headers): the policy (`q` a window of `w` seconds) and what
 * remains (`r`) until it is whole again (`t` seconds); and Retry-After when refused.
 */
export function budgetHeaders(
  budget: BudgetState,
  refused: boolean,
): ReadonlyArray<readonly [string, string]> {
  return [
    ['ratelimit-policy', `"cost";q=${budget.limit};w=${WINDOW_SECONDS}`],
    ['ratelimit', `"cost";r=${budget.remaining};t=${budget.resetSeconds}`],
    ...(refused ? [['retry-after', String(budget.resetSeconds)] as const] : []),
  ];
}
