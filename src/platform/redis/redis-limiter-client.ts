import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { DependencyState } from '../observability/dependency-state';

/**
 * A Redis client for counters shared by every instance (rate-limiter-flexible's store): it fails
 * at once while Redis is away (no offline queue, one retry), so the limiter's in-memory
 * insurance counts meanwhile, and its outage is logged once, not a stack on every retry (~2 s).
 * ioredis is loaded only here, when REDIS_URL is set: it takes ~90 ms of every start otherwise.
 */
export function openLimiterRedis(url: string, logger: Logger): Redis {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
  const redis = new RedisClient(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: false,
  });
  const state = new DependencyState('redis', logger);
  redis.on('error', (error: unknown) => state.failed(error));
  redis.on('ready', () => state.recovered());
  return redis;
}
