import { call, type Tally } from './calls';
import type { Cast } from './people';

// The fleet run's readers: subscribers reading their own profile and their watched meeting over
// REST, one request after another, to count what reads meet during each fault.

export class Readers {
  private running = true;
  private loops: Promise<void>[] = [];
  reads = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly cast: Cast,
    private readonly tally: Tally,
  ) {}

  start(count: number): void {
    this.loops = Array.from({ length: count }, (_x, r) => this.loop(r));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(r: number): Promise<void> {
    for (let n = r; this.running; n += 1) {
      const i = (n * 31) % this.cast.subscribers.length;
      const reader = this.cast.subscribers[i];
      const path = n % 2 === 0 ? '/api/v1/user/me' : `/api/v1/meeting/${this.cast.watched[i]}`;
      if (reader) {
        this.tally.count(await call(this.baseUrl, 'GET', path, { token: reader.token }));
        this.reads += 1;
      }
    }
  }
}
