import type { Logger } from 'pino';
import { causeOf } from './log-safety';

/**
 * Whether a dependency (the database, Redis, the event listener's connection) is reachable, told
 * to the log once when it goes down and once when it comes back: a client retrying every few
 * seconds would otherwise write a line (or a stack) per retry for as long as the outage lasts.
 */
export class DependencyState {
  private down = false;

  constructor(
    private readonly dependency: string,
    private readonly logger: Logger,
  ) {}

  /** A failure to reach it; logged if it was up. */
  failed(cause: unknown): void {
    if (this.down) {
      return;
    }
    this.down = true;
    this.logger.warn({ dependency: this.dependency, cause: causeOf(cause) }, 'dependency down');
  }

  /** It answered; logged if it was down. */
  recovered(): void {
    if (!this.down) {
      return;
    }
    this.down = false;
    this.logger.info({ dependency: this.dependency }, 'dependency up');
  }

  get isDown(): boolean {
    return this.down;
  }
}
