import { EventEmitter } from 'node:events';
import type {
  WorkerEvents,
  WorkerPool,
} from 'graphile-worker' with { 'resolution-mode': 'import' };
import { giveUpStuckPools, STUCK_AFTER_ABORT_MS } from '../../src/platform/jobs/stuck-pools';

/**
 * A pool that starts stopping and has not released STUCK_AFTER_ABORT_MS after its jobs' abort
 * time is given up; one that releases in time is not. The events are emitted on the same kind of
 * emitter the job queue hands graphile-worker (its pools emit these two).
 */
describe('pools stuck stopping', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const pool = (id: string) => ({ id }) as WorkerPool;

  it('gives up a pool that does not release in time, and only that one', () => {
    const events = new EventEmitter() as WorkerEvents;
    const givenUp: string[] = [];
    giveUpStuckPools(events, 500, (workerPool) => givenUp.push(workerPool.id));
    const [stuck, released] = [pool('pool-stuck'), pool('pool-released')];
    for (const workerPool of [stuck, released]) {
      events.emit('pool:gracefulShutdown', {
        workerPool,
        message: 'cron exited with error',
      } as never);
    }
    jest.advanceTimersByTime(1_000);
    events.emit('pool:release', { workerPool: released } as never);
    jest.advanceTimersByTime(500 + STUCK_AFTER_ABORT_MS - 1_001);
    expect(givenUp).toEqual([]);
    jest.advanceTimersByTime(2);
    expect(givenUp).toEqual(['pool-stuck']);
    jest.advanceTimersByTime(60_000);
    expect(givenUp).toEqual(['pool-stuck']);
  });
});
