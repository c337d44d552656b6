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

  /** Runs `task` in its turn; answers (or throws) what it does. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) {
      this.running += 1;
    } else {
      // The turn is handed over with `running` unchanged (see `release`).
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      this.release();
    }
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
