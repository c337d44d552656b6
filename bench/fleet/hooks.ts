import { WEBHOOK_EVENT_TYPES } from '../../src/modules/webhook/webhook.events';
import { HookReceiver, type Receipt } from '../lib/hook-receiver';
import { graphqlData } from '../lib/http';
import type { Member } from './people';

// The fleet run's webhooks: one endpoint per writer (every event type) at a receiver on the
// bridge, which the hosts reach; and the aim of the kill at the host making a delivery.

const CREATE_ENDPOINT =
  'mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } secret } }';

export interface Hooks {
  receiver: HookReceiver;
  /** Each writer's endpoint's signing secret (endpoint n is writer n's). */
  secrets: string[];
}

/** The receiver, with its certificate (the hosts' NODE_EXTRA_CA_CERTS); it listens once the
 * bridge has its address. */
export function makeReceiver(address: string): HookReceiver {
  return HookReceiver.create(address);
}

export async function registerEndpoints(
  baseUrl: string,
  receiver: HookReceiver,
  writers: readonly Member[],
): Promise<Hooks> {
  const secrets: string[] = [];
  for (const [n, writer] of writers.entries()) {
    const made = await graphqlData<{ createWebhookEndpoint: { secret: string } }>(
      baseUrl,
      writer.token,
      CREATE_ENDPOINT,
      { input: { url: receiver.url(n), eventTypes: WEBHOOK_EVENT_TYPES } },
      'fleet: webhook endpoint',
    );
    secrets.push(made.createWebhookEndpoint.secret);
  }
  return { receiver, secrets };
}

/**
 * Holds the next delivery that comes, and from then on every delivery from the host that sent
 * it, unanswered; answers that host's address: it is running delivery jobs, their endpoints'
 * queues locked by its worker pool. `release` lets the held deliveries (and every later one) be
 * answered; those whose host is gone by then were never answered and do not count (their jobs
 * must run again elsewhere).
 */
export function holdDeliveriesOfNextHost(receiver: HookReceiver): {
  host: Promise<{ address: string; receipt: Receipt }>;
  release: () => void;
} {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const host = new Promise<{ address: string; receipt: Receipt }>((resolve) => {
    let aimed: string | null = null;
    receiver.beforeAnswer = async (receipt) => {
      const from = receipt.from.replace(/^::ffff:/, '');
      if (aimed === null) {
        aimed = from;
        resolve({ address: from, receipt });
      }
      if (from === aimed) {
        await released;
      }
    };
  });
  return {
    host,
    release: () => {
      receiver.beforeAnswer = null;
      release();
    },
  };
}

/**
 * Holds every delivery from `address` unanswered until released, then closes their connections
 * unanswered: a receiver that never answered did not take them (they are sent again).
 */
export function holdDeliveriesFrom(receiver: HookReceiver, address: string): { drop: () => void } {
  const held: Receipt[] = [];
  let dropped = false;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  receiver.beforeAnswer = async (receipt) => {
    if (receipt.from.replace(/^::ffff:/, '') === address) {
      if (dropped) {
        receipt.drop?.();
        return;
      }
      held.push(receipt);
      await released;
    }
  };
  return {
    drop: () => {
      dropped = true;
      held.forEach((receipt) => receipt.drop?.());
      receiver.beforeAnswer = null;
      release();
    },
  };
}
