import { ServiceUnavailableError } from './errors';

/**
 * Lets at most `limit` tasks run at once; the others wait their turn, first come first served.
 * For work whose memory, not its waiting, is the cost of running many at once: a finished task
 * hands its turn straight to the first one waiting. Written here rather than taken from p-limit:
 * its current major (7) is an ES module only, which jest's CommonJS loader in our suites cannot
 * require, and the 30 lines below are all of the part we use.
 */
export class Turns {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`Turns wants a limit of at least 1, got ${limit}`);
    }
  }

  /** How many tasks wait for a turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Runs `task` in its turn; answers (or throws) what it does. With `maxWaitMs`, a task whose turn
   * has not come by then is not run: ServiceUnavailableError, with a Retry-After of that wait.
   */
  async run<T>(task: () => Promise<T>, maxWaitMs?: number): Promise<T> {
    if (this.running < this.limit) {
      this.running += 1;
    } else {
      // The turn is handed over with `running` unchanged (see `release`).
      await this.turn(maxWaitMs);
    }
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private turn(maxWaitMs: number | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const take = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiting.push(take);
      if (maxWaitMs !== undefined) {
        timer = setTimeout(() => {
          // Given up before its turn came: out of the line, so no turn is handed to it.
          this.waiting.splice(this.waiting.indexOf(take), 1);
          reject(new ServiceUnavailableError(Math.max(1, Math.ceil(maxWaitMs / 1000))));
        }, maxWaitMs);
      }
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) {
      next();
    } else {
      this.running -= 1;
    }
  }
}
