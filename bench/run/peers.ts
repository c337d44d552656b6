import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '../lib/http';
import type { BenchOptions } from '../lib/options';
import { ROOT } from '../lib/paths';
import {
  type MeetingTarget,
  MEETING_TARGETS,
  PEER_DIR,
  PEERS,
  type PeerInfo,
  type PeerKey,
  peerAnswerProblems,
  peerMeetingRequest,
} from '../lib/peers';
import type { Server } from '../lib/processes';
import type { LoadPlan, PlannedRequest } from '../lib/protocol';
import type { PeersReport } from '../lib/report-peers';
import { type ReadKey, readRequests, type ScenarioKey } from '../lib/scenarios';
import { summarize } from '../lib/stats';
import type { Statements } from './equality';
import type { BenchContext } from './prepare';
import { log } from './progress';
import { startPeer } from './targets';
import { alternating, type Measured, measurePlan, noRuns } from './timed-runs';

// --peers: PostGraphile v5 on the meeting, installed on demand, checked, then timed in one
// rotation with the service and the baseline.

function run(command: string, args: string[], what: string): void {
  const result = spawnSync(command, args, { cwd: PEER_DIR, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(`${what} failed (${command} ${args.join(' ')} in bench/peers/postgraphile)`);
  }
}

/**
 * `npm ci` in bench/peers/postgraphile when its node_modules is missing or older than its
 * lockfile (never part of the service's own install), then compiles the peer's server.
 */
export function ensurePeersInstalled(): void {
  const installed = join(PEER_DIR, 'node_modules/.package-lock.json');
  const lock = join(PEER_DIR, 'package-lock.json');
  if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
    log('--peers: installing PostGraphile v5 (npm ci in bench/peers/postgraphile)…');
    run('npm', ['ci', '--no-audit', '--no-fund'], 'installing the peers');
  }
  run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], 'compiling the peers');
}

interface PeerStats {
  requests: number;
  statements: number;
  transactionControl: number;
}

async function stats(peer: Server): Promise<PeerStats> {
  return (await (await fetch(`${peer.url}/__stats`)).json()) as PeerStats;
}

const CHECKED_REQUESTS = 5;

/** SQL statements per request of a peer, and its BEGIN/COMMIT per request. */
interface PeerStatements {
  statements: number;
  transactionControl: number;
}

/**
 * Before timing: the peer answers the meeting with the service's data (fails loudly if not), the
 * token peer refuses a request without a token, and the statements per request.
 */
async function checkPeer(
  ctx: BenchContext,
  peer: Server,
  info: PeerInfo,
  serviceBody: string,
): Promise<PeerStatements> {
  const request = peerMeetingRequest(ctx.callers.demo, ctx.fixtures.bigMeetingId);
  const before = await stats(peer);
  for (let i = 0; i < CHECKED_REQUESTS; i += 1) {
    const answer = await send(peer.url, request);
    const problems =
      answer.status === 200
        ? peerAnswerProblems(serviceBody, answer.body)
        : [`status ${answer.status}: ${answer.body.slice(0, 300)}`];
    if (problems.length > 0) {
      throw new Error(
        `${info.title} does not answer the service's meeting, so the comparison would mean nothing:\n  - ${problems.join('\n  - ')}`,
      );
    }
  }
  const after = await stats(peer);
  if (info.auth === 'token') {
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => name !== 'authorization'),
    );
    const anonymous = await send(peer.url, { ...request, headers });
    if (anonymous.status !== 401) {
      throw new Error(`${info.title} answered ${anonymous.status} without a token, not 401`);
    }
  }
  return {
    statements: (after.statements - before.statements) / CHECKED_REQUESTS,
    transactionControl: (after.transactionControl - before.transactionControl) / CHECKED_REQUESTS,
  };
}

/**
 * The meeting on every target in one rotation, so that the service, the baseline and the peers meet
 * the same machine: the peers are started and checked against the service's GraphQL answer first.
 */
export async function peersPass(
  ctx: BenchContext,
  ours: { service: Server; baseline: Server },
  statements: ReadonlyMap<ScenarioKey, Statements>,
  options: BenchOptions,
): Promise<PeersReport> {
  const requests = (key: ReadKey): PlannedRequest[] => readRequests(key, ctx);
  const serviceAnswer = await send(
    ours.service.url,
    requests('meeting-graphql')[0] as PlannedRequest,
  );
  if (serviceAnswer.status !== 200) {
    throw new Error(`the service answered the meeting with ${serviceAnswer.status}`);
  }
  const peers = new Map<PeerKey, Server>();
  try {
    const counted = new Map<PeerKey, PeerStatements>();
    for (const info of PEERS) {
      const peer = await startPeer(ctx.dbUrl, info);
      peers.set(info.key, peer);
      const sql = await checkPeer(ctx, peer, info, serviceAnswer.body);
      counted.set(info.key, sql);
      log(
        `  ${info.title}: same meeting data as the service; SQL statements per request ` +
          `${sql.statements.toFixed(1)} (+ ${sql.transactionControl.toFixed(1)} BEGIN/COMMIT)`,
      );
    }
    const peerPlan: LoadPlan = {
      kind: 'cycle',
      requests: [peerMeetingRequest(ctx.callers.demo, ctx.fixtures.bigMeetingId)],
    };
    const where = (t: MeetingTarget): { server: Server; plan: LoadPlan } =>
      t.kind === 'peer'
        ? { server: peers.get(t.peer.key) as Server, plan: peerPlan }
        : { server: ours[t.side], plan: { kind: 'cycle', requests: requests(t.scenario) } };
    const runs = new Map(MEETING_TARGETS.map((t) => [t.key, noRuns()]));
    await alternating(options.rounds, MEETING_TARGETS, async (t, round) => {
      const { server, plan } = where(t);
      const label = `meeting: ${t.title} · round ${round}/${options.rounds}`;
      await measurePlan(plan, server, options, label, runs.get(t.key) as Measured);
    });
    return {
      rows: MEETING_TARGETS.map((t) => {
        const measured = runs.get(t.key) as Measured;
        return {
          key: t.key,
          title: t.title,
          baselineKey: t.baselineKey,
          summary: summarize(measured.results, measured.peakRss),
          ...(t.kind === 'peer'
            ? (counted.get(t.peer.key) as PeerStatements)
            : { statements: statements.get(t.scenario)?.[t.side] ?? Number.NaN }),
        };
      }),
    };
  } finally {
    for (const peer of peers.values()) {
      await peer.stop();
    }
  }
}
