import type { HookReceiver } from '../lib/hook-receiver';
import type { Fleet } from './fleet';
import { holdDeliveriesFrom, holdDeliveriesOfNextHost } from './hooks';

// The fleet run's faults, one after another with `spacing` seconds of steady load between them,
// each named as the phase of the run while it lasts: kill -9 of the host making a webhook
// delivery (then its restart), a host cut off the network for 20 s, a restart of the primary,
// the replica stopped and started, the replica 2 s behind.

export interface FaultRecord {
  phase: string;
  /** Seconds from the load's start. */
  at: number;
  seconds: number;
  /** Seconds until HAProxy marked the host down (kill and cut). */
  balancerDownAfter?: number;
  /** Kill: the held delivery's id, and when (performance.now()) its host was killed. */
  heldDelivery?: { id: string; killedAt: number } | null;
  note?: string;
}

const CUT_SECONDS = 20;
const REPLICA_AWAY_SECONDS = 10;
const LAG_MS = 2_000;
const SETTLE_SECONDS = 1;
/** How long the kill waits for a delivery to be in flight before it kills the first host. */
const AIM_MS = 10_000;

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** Seconds from `since` until HAProxy reports `host` down (polled every 100 ms; NaN after 30 s). */
async function downAfter(fleet: Fleet, host: string, since: number): Promise<number> {
  while (performance.now() - since < 30_000) {
    const status = (await fleet.balancerStatus()).get(host) ?? '';
    if (status.startsWith('DOWN')) {
      return (performance.now() - since) / 1000;
    }
    await sleep(0.1);
  }
  return Number.NaN;
}

export class FaultPlan {
  phase = 'steady';
  readonly records: FaultRecord[] = [];

  constructor(
    private readonly fleet: Fleet,
    private readonly receiver: HookReceiver,
    private readonly spacing: number,
    private readonly t0: number,
  ) {}

  async run(): Promise<void> {
    const faults: [string, () => Promise<Partial<FaultRecord>>][] = [
      ['kill -9 of the host delivering a webhook', () => this.kill()],
      [`a host cut off for ${CUT_SECONDS} s`, () => this.cut(1 % this.fleet.hosts.length)],
      ['primary restart', () => this.fleet.restartPrimary().then(() => ({}))],
      [`replica stopped for ${REPLICA_AWAY_SECONDS} s`, () => this.replicaAway()],
      [`replica ${LAG_MS / 1000} s behind`, () => this.lag()],
    ];
    for (const [phase, fault] of faults) {
      await sleep(this.spacing);
      const started = performance.now();
      this.phase = phase;
      const found = await fault();
      this.records.push({
        phase,
        at: (started - this.t0) / 1000,
        seconds: (performance.now() - started) / 1000,
        ...found,
      });
      this.phase = 'steady';
    }
    await sleep(this.spacing);
  }

  private async kill(): Promise<Partial<FaultRecord>> {
    const hold = holdDeliveriesOfNextHost(this.receiver);
    const aimed = await Promise.race([hold.host, sleep(AIM_MS / 1000).then(() => null)]);
    // A second with the host's deliveries in flight and none answered: what it had answered
    // before is recorded by then. (One answered in the milliseconds before a kill, not yet
    // recorded, is sent again by another host: webhooks are delivered at least once.)
    await sleep(aimed ? SETTLE_SECONDS : 0);
    const index = aimed ? this.fleet.hosts.findIndex((host) => host.address === aimed.address) : -1;
    const i = Math.max(0, index);
    const host = this.fleet.hosts[i]?.name ?? '';
    const killedAt = performance.now();
    this.fleet.killHost(i);
    // Answered once the balancer has found the host dead: its connection is gone by then, so
    // the delivery held was never answered, as when a host dies in the middle of one.
    const down = await downAfter(this.fleet, host, killedAt);
    hold.release();
    await sleep(this.spacing / 2);
    await this.fleet.startHost(i);
    return {
      balancerDownAfter: down,
      heldDelivery: aimed ? { id: String(aimed.receipt.headers['webhook-id']), killedAt } : null,
      note:
        index >= 0
          ? `${host}, killed with a delivery in flight; restarted after ${this.spacing / 2} s`
          : `no delivery in flight within ${AIM_MS / 1000} s: ${host} killed`,
    };
  }

  private async cut(i: number): Promise<Partial<FaultRecord>> {
    const host = this.fleet.hosts[i];
    // As for the kill: a second with the host's deliveries unanswered first, so that what it had
    // answered is recorded. (One answered in the instant before a cut, whose answer the host
    // cannot record, is sent again by another host: webhooks are delivered at least once.) What
    // it sends while cut off is never answered.
    const hold = holdDeliveriesFrom(this.receiver, host?.address ?? '');
    await sleep(SETTLE_SECONDS);
    const cutAt = performance.now();
    this.fleet.cutHost(i);
    const down = await downAfter(this.fleet, host?.name ?? '', cutAt);
    await sleep(CUT_SECONDS - (performance.now() - cutAt) / 1000);
    hold.drop();
    this.fleet.restoreHost(i);
    return { balancerDownAfter: down, note: host?.name ?? '' };
  }

  private async replicaAway(): Promise<Partial<FaultRecord>> {
    this.fleet.stopReplica();
    await sleep(REPLICA_AWAY_SECONDS);
    await this.fleet.startReplica();
    return {};
  }

  private async lag(): Promise<Partial<FaultRecord>> {
    await this.fleet.setReplicaDelay(LAG_MS);
    await sleep(this.spacing);
    await this.fleet.setReplicaDelay(0);
    return {};
  }
}
