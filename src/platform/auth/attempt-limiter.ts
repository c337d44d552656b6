import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { RateLimitConfig } from './auth.settings';
import { TooManyRequestsError } from '../shared/errors';

/** The sign-in and sign-up actions whose attempts are counted. */
export type AttemptAction = 'login' | 'register' | 'refresh';

/** Who is attempting: the client address, and the account named, when there is one. */
export interface Attempt {
  action: AttemptAction;
  ip: string;
  account?: string;
}

/** Counts one attempt of the current request's client (the context fills in the address). */
export type CountAttempt = (attempt: Omit<Attempt, 'ip'>) => Promise<void>;

/**
 * Counts sign-in, sign-up and token attempts per client address and per account, in memory or,
 * with REDIS_URL, in Redis so that every instance shares the counts.
 */
export class AttemptLimiter {
  private constructor(
    private readonly perIp: RateLimiterAbstract,
    private readonly perAccount: RateLimiterAbstract,
  ) {}

  /** `redis`: the instances' shared counters (openLimiterRedis), null to count in memory. */
  static create(settings: RateLimitConfig, redis: Redis | null): AttemptLimiter {
    const duration = settings.windowSeconds;
    if (redis) {
      // A brief Redis outage falls back to per-instance counting rather than refusing everyone.
      const insurance = (points: number, keyPrefix: string) =>
        new RateLimiterMemory({ points, duration, keyPrefix });
      return new AttemptLimiter(
        new RateLimiterRedis({
          storeClient: redis,
          points: settings.perIp,
          duration,
          keyPrefix: 'rl:auth:ip',
          insuranceLimiter: insurance(settings.perIp, 'ip'),
        }),
        new RateLimiterRedis({
          storeClient: redis,
          points: settings.perAccount,
          duration,
          keyPrefix: 'rl:auth:account',
          insuranceLimiter: insurance(settings.perAccount, 'account'),
        }),
      );
    }
    return new AttemptLimiter(
      new RateLimiterMemory({ points: settings.perIp, duration, keyPrefix: 'ip' }),
      new RateLimiterMemory({ points: settings.perAccount, duration, keyPrefix: 'account' }),
    );
  }

  /** Counts one attempt; throws TooManyRequestsError once either budget is spent. */
  async consume(attempt: Attempt): Promise<void> {
    try {
      await this.perIp.consume(`${attempt.action}:${attempt.ip}`);
      if (attempt.account) {
        await this.perAccount.consume(`${attempt.action}:${attempt.account.trim().toLowerCase()}`);
      }
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        throw new TooManyRequestsError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      }
      throw rejection;
    }
  }
}
