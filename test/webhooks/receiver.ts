import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../helpers/test-app';
import type { SeededUser } from '../helpers/seed';
import type { WebhookBody } from '../../src/modules/webhook/webhook-body';

/** A request a receiver got: its headers, its body as sent, and the parsed body. */
export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: WebhookBody;
}

/** How a receiver answers the n-th request (from 0); default 204. */
export type Answer = (n: number, response: ServerResponse) => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A real HTTP receiver on 127.0.0.1 that keeps what it gets. */
export class Receiver {
  private constructor(
    readonly url: string,
    readonly received: Received[],
    private readonly stop: () => Promise<void>,
  ) {}

  static async start(answer: Answer = (_n, response) => response.writeHead(204).end()) {
    const received: Received[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const n = received.length;
        received.push({ headers: request.headers, raw, body: JSON.parse(raw) as Received['body'] });
        answer(n, response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new Receiver(`http://127.0.0.1:${port}/hooks`, received, async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
  }

  /** Waits until `count` requests came (or `timeoutMs` passed), then answers them all. */
  async waitFor(count: number, timeoutMs = 15_000): Promise<Received[]> {
    const until = Date.now() + timeoutMs;
    while (this.received.length < count && Date.now() < until) {
      await sleep(25);
    }
    return this.received;
  }

  /** The requests after a pause long enough for more to have come. */
  async settled(quietMs = 1_500): Promise<Received[]> {
    let seen = -1;
    while (seen !== this.received.length) {
      seen = this.received.length;
      await sleep(quietMs);
    }
    return this.received;
  }

  close(): Promise<void> {
    return this.stop();
  }
}

export const ALL_EVENT_TYPES = [
  'meeting.participant_added',
  'meeting.participant_answered',
  'meeting.participant_removed',
  'meeting.updated',
  'meeting.rescheduled',
  'meeting.confirmed',
  'meeting.cancelled',
  'meeting.completed',
];

const CREATE = `mutation ($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) {
    endpoint { id url eventTypes enabled disabledReason consecutiveFailures createdAt }
    secret
  }
}`;

export interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  /** Since when its attempts fail (null while they succeed). */
  failingSince?: string | null;
  createdAt: string;
}

/** Creates an endpoint of `user` for `url`; answers it and its secret. */
export async function createEndpoint(
  t: TestApp,
  user: SeededUser,
  url: string,
  eventTypes: string[] = ALL_EVENT_TYPES,
): Promise<{ endpoint: Endpoint; secret: string }> {
  const data = await t.gql.data<{
    createWebhookEndpoint: { endpoint: Endpoint; secret: string };
  }>(CREATE, { input: { url, eventTypes } }, user.token);
  return data.createWebhookEndpoint;
}

export const ATTEMPTS = `query ($endpointId: UUID!, $first: Int, $after: String) {
  webhookDeliveries(endpointId: $endpointId, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes {
      id number manual statusCode durationMs error succeeded createdAt retryAt
      delivery { id eventType cursor meetingId status attemptCount nextAttemptAt endpointId }
    }
  }
}`;

export interface Attempt {
  id: string;
  number: number;
  manual: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  succeeded: boolean;
  createdAt: string;
  retryAt: string | null;
  delivery: {
    id: string;
    eventType: string;
    cursor: string;
    meetingId: string;
    status: string;
    attemptCount: number;
    nextAttemptAt: string | null;
    endpointId: string;
  };
}

/** The attempts at deliveries to an endpoint, newest first (the first 100). */
export async function attemptsOf(
  t: TestApp,
  user: SeededUser,
  endpointId: string,
): Promise<Attempt[]> {
  const data = await t.gql.data<{ webhookDeliveries: { nodes: Attempt[] } }>(
    ATTEMPTS,
    { endpointId, first: 100 },
    user.token,
  );
  return data.webhookDeliveries.nodes;
}

/** Polls until `check` holds (or the time is up), answering its last value. */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value) && Date.now() < until) {
    await sleep(100);
    value = await read();
  }
  return value;
}
