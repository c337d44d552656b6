import { WEBHOOK_EVENT_TYPES } from '../../src/modules/webhook/webhook.events';
import { benchUsers, createMeetings, type Fixtures, withClient } from '../lib/db';
import { HookReceiver } from '../lib/hook-receiver';
import { graphqlData, send } from '../lib/http';
import { signAccessToken } from '../lib/jwt';
import type { Server } from '../lib/processes';
import { addRequest, approveRequest } from '../lib/scenarios';
import { KEYS, startService, TOKENS } from './targets';
import { Deliveries } from './webhook-receipts';

// The webhook scenario's data and stage (run/webhook-pass.ts): its users, meetings and
// endpoints, the receiver, a service that trusts it, and the writes.

export const WEBHOOKS = {
  /** The owners of the endpoints, as indexes of HOOK_USERS (0: the meetings' owner). */
  endpointOwners: [0, 0, 1, 2],
  /** Pairs (add, approve) written in the burst. */
  burstPairs: { quick: 60, full: 200 },
  /** Seconds of writing at the steady rate. */
  steadySeconds: { quick: 3, full: 15 },
  /** Writers of the burst (each writes its pairs one after the other). */
  writers: 4,
  /** Pairs before measuring (they also carry whatever change log the dispatcher had left). */
  warmupPairs: 5,
  /** Pairs of the statement-counting run, at `countedRate` a second. */
  countedPairs: 30,
  countedRate: 10,
} as const;

/** The scenario's users: the meetings' owner and its two guests, each owning endpoints. */
export const HOOK_USERS = [
  { account: 'bench.hooks.owner', name: 'Bench Hooks Owner' },
  { account: 'bench.hooks.a', name: 'Bench Hooks Guest A' },
  { account: 'bench.hooks.b', name: 'Bench Hooks Guest B' },
];

const CREATE_ENDPOINT =
  'mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } secret } }';
const ATTEMPTS =
  'query ($id: UUID!) { webhookDeliveries(endpointId: $id, first: 3) { nodes { statusCode error } } }';

type Member = { id: string; token: string };

/** What the scenario made before its runs. */
export interface Setup {
  dbUrl: string;
  users: Member[];
  invitees: Member[];
  /** Meetings to write to, one pair each, taken in turn. */
  meetings: string[];
  next: number;
}

/** Removes what the scenario made: the owner's meetings and the users' endpoints. */
export async function cleanupWebhooks(dbUrl: string): Promise<void> {
  await withClient(dbUrl, async (client) => {
    const users = `select "id" from "users" where "account" = any($1)`;
    const accounts = HOOK_USERS.map((user) => user.account);
    await client.query(`delete from "webhook_endpoints" where "user_id" in (${users})`, [accounts]);
    await client.query(`delete from "meetings" where "owner_id" in (${users})`, [accounts]);
  });
}

/** The users, their meetings (the owner's two guests accepted), the invitees' tokens. */
export async function setUp(dbUrl: string, fixtures: Fixtures, meetings: number): Promise<Setup> {
  await cleanupWebhooks(dbUrl);
  const ids = await benchUsers(dbUrl, HOOK_USERS);
  const [ownerId, ...guests] = ids as [string, ...string[]];
  return {
    dbUrl,
    users: ids.map((id) => ({ id, token: signAccessToken(KEYS, TOKENS, id) })),
    invitees: fixtures.invitees.map((id) => ({ id, token: signAccessToken(KEYS, TOKENS, id) })),
    meetings: await createMeetings(dbUrl, ownerId, meetings, {
      title: 'Bench webhook meeting',
      guests: () => guests,
    }),
    next: 0,
  };
}

/** Responses of the writes by `<meetingId> add|approve`: performance.now() when each came. */
export type Acks = Map<string, number>;

/** One pair of writes on the next meeting: the owner adds an invitee, who approves. */
export async function writePair(service: Server, setup: Setup, acks: Acks): Promise<void> {
  const i = setup.next;
  setup.next += 1;
  const meetingId = setup.meetings[i];
  if (!meetingId) {
    throw new Error('webhook-deliveries: out of meetings to write to');
  }
  const invitee = setup.invitees[i % setup.invitees.length] as Member;
  const owner = setup.users[0] as Member;
  for (const [step, request] of [
    ['add', addRequest(owner.token, meetingId, invitee.id)],
    ['approve', approveRequest(invitee.token, meetingId)],
  ] as const) {
    const answer = await send(service.url, request);
    acks.set(`${meetingId} ${step}`, performance.now());
    if (answer.status !== 200) {
      throw new Error(`webhook-deliveries: ${step} answered ${answer.status}: ${answer.body}`);
    }
  }
}

/** The cursors of the changes logged for the meetings written so far. */
export async function loggedCursors(setup: Setup): Promise<string[]> {
  return withClient(setup.dbUrl, async (client) => {
    const rows = await client.query<{ cursor: string }>(
      `select "tx"::text || '.' || "position"::text as "cursor" from "change_log"
       where "scope_id" = any($1)`,
      [setup.meetings.slice(0, setup.next)],
    );
    return rows.rows.map((row) => row.cursor);
  });
}

/** Changes logged for the meetings written so far (each makes one delivery per endpoint). */
export async function changesSoFar(setup: Setup): Promise<number> {
  return withClient(setup.dbUrl, async (client) => {
    const result = await client.query<{ n: number }>(
      `select count(*)::int as "n" from "change_log" where "scope_id" = any($1)`,
      [setup.meetings.slice(0, setup.next)],
    );
    return result.rows[0]?.n ?? 0;
  });
}

/** Pairs written `perSecond` for `seconds` (or `pairs` of them), each started on time. */
export async function writeSteadily(
  service: Server,
  setup: Setup,
  acks: Acks,
  perSecond: number,
  limit: { seconds?: number; pairs?: number },
): Promise<number> {
  const started = performance.now();
  const writes: Promise<void>[] = [];
  for (let n = 0; ; n += 1) {
    const due = started + (n * 1000) / perSecond;
    if (
      (limit.seconds !== undefined && due - started >= limit.seconds * 1000) ||
      n === limit.pairs
    ) {
      break;
    }
    const wait = due - performance.now();
    if (wait > 0) {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    writes.push(writePair(service, setup, acks));
  }
  await Promise.all(writes);
  return writes.length;
}

/** How long the warm-up's deliveries may take (they fail fast when none can arrive). */
const WARMUP_MS = 30_000;

/** A started service with its endpoints at a receiver, ready for writes. */
export interface Stage {
  service: Server;
  receiver: HookReceiver;
  deliveries: Deliveries;
  /** Secrets by endpoint number (the receiver's path). */
  secrets: string[];
  acks: Acks;
}

/** The receiver, a service that trusts it, the endpoints; then the warm-up's deliveries. */
export async function stage(
  dbUrl: string,
  setup: Setup,
  options: { logLevel: 'info' | 'warn'; root?: string; name?: string },
): Promise<Stage> {
  const receiver = await HookReceiver.start();
  let service: Server | null = null;
  try {
    service = await startService(dbUrl, options.logLevel, {
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', NODE_EXTRA_CA_CERTS: receiver.certFile },
      ...(options.root ? { root: options.root } : {}),
      ...(options.name ? { name: options.name } : {}),
    });
    const running = service;
    const secrets: string[] = [];
    const endpointIds: string[] = [];
    for (const [n, owner] of WEBHOOKS.endpointOwners.entries()) {
      const made = await graphqlData<{
        createWebhookEndpoint: { endpoint: { id: string }; secret: string };
      }>(
        running.url,
        (setup.users[owner] as Member).token,
        CREATE_ENDPOINT,
        { input: { url: receiver.url(n), eventTypes: WEBHOOK_EVENT_TYPES } },
        'webhook-deliveries setup',
      );
      secrets.push(made.createWebhookEndpoint.secret);
      endpointIds.push(made.createWebhookEndpoint.endpoint.id);
    }
    const staged: Stage = {
      service: running,
      receiver,
      deliveries: new Deliveries(receiver),
      secrets,
      acks: new Map(),
    };
    for (let n = 0; n < WEBHOOKS.warmupPairs; n += 1) {
      await writePair(running, setup, staged.acks);
    }
    const expected = WEBHOOKS.endpointOwners.length * (await changesSoFar(setup));
    if ((await staged.deliveries.reached(expected, WARMUP_MS)) === null) {
      const attempts = await graphqlData<{ webhookDeliveries: { nodes: unknown[] } }>(
        running.url,
        (setup.users[0] as Member).token,
        ATTEMPTS,
        { id: endpointIds[0] },
        'webhook-deliveries setup',
      );
      throw new Error(
        `webhook-deliveries: ${staged.deliveries.distinct} of the warm-up's ${expected} deliveries arrived in ${WARMUP_MS / 1000} s; the first endpoint's attempts: ${JSON.stringify(attempts.webhookDeliveries.nodes)}`,
      );
    }
    return staged;
  } catch (error) {
    await service?.stop();
    await receiver.close();
    throw error;
  }
}

export async function unstage(s: Stage): Promise<void> {
  await s.service.stop();
  await s.receiver.close();
}
