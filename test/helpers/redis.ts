/** The Redis the suites that share counts across instances use. */
export const TEST_REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/**
 * Whether the test Redis answers. CI machines run one (unreachable there is an error); elsewhere
 * a suite that needs it says so and is not run.
 */
export async function testRedisReachable(): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 500,
  });
  let reachable = false;
  try {
    await client.connect();
    await client.ping();
    reachable = true;
  } catch {
    reachable = false;
  } finally {
    client.disconnect();
  }
  if (!reachable && process.env['CI']) {
    throw new Error(`Redis is not reachable at ${TEST_REDIS_URL}`);
  }
  if (!reachable) {
    console.warn(`Redis not reachable at ${TEST_REDIS_URL}: what instances share is not tested`);
  }
  return reachable;
}
