import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '../lib/http';
import type { BenchOptions } from '../lib/options';
import { ROOT } from '../lib/paths';
import {
  PEER_DIR,
  PEERS,
  type PeerInfo,
  type PeerKey,
  peerAnswerProblems,
  peerMeetingRequest,
} from '../lib/peers';
import type { Server } from '../lib/processes';
import type { PlannedRequest } from '../lib/protocol';
import type { PeersReport } from '../lib/report-peers';
import { readRequests } from '../lib/scenarios';
import { summarize } from '../lib/stats';
import type { BenchContext } from './prepare';
import { log } from './progress';
import { startPeer } from './targets';
import { alternating, measurePlan, noRuns } from './timed-runs';

// --peers: PostGraphile v5 on the meeting, installed on demand, checked, then timed.

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

/**
 * Before timing: the peer answers the meeting with the service's data (fails loudly if not), the
 * token peer refuses a request without a token, and the statements per request.
 */
async function checkPeer(
  ctx: BenchContext,
  peer: Server,
  info: PeerInfo,
  serviceBody: string,
): Promise<{ statements: number; transactionControl: number }> {
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

/** Both peers: checked against the service's GraphQL answer, then timed, alternating. */
export async function peersPass(
  ctx: BenchContext,
  service: Server,
  options: BenchOptions,
): Promise<PeersReport> {
  const serviceAnswer = await send(
    service.url,
    readRequests('meeting-graphql', ctx.fixtures, ctx.callers)[0] as PlannedRequest,
  );
  if (serviceAnswer.status !== 200) {
    throw new Error(`the service answered the meeting with ${serviceAnswer.status}`);
  }
  const servers = new Map<PeerKey, Server>();
  try {
    for (const info of PEERS) {
      servers.set(info.key, await startPeer(ctx.dbUrl, info));
    }
    const counted = new Map<PeerKey, { statements: number; transactionControl: number }>();
    for (const info of PEERS) {
      const sql = await checkPeer(ctx, servers.get(info.key) as Server, info, serviceAnswer.body);
      counted.set(info.key, sql);
      log(
        `  ${info.title}: same meeting data as the service; SQL statements per request ` +
          `${sql.statements.toFixed(1)} (+ ${sql.transactionControl.toFixed(1)} BEGIN/COMMIT)`,
      );
    }
    const plan = {
      kind: 'cycle' as const,
      requests: [peerMeetingRequest(ctx.callers.demo, ctx.fixtures.bigMeetingId)],
    };
    const [first, second] = PEERS as [PeerInfo, PeerInfo];
    const runs = { [first.key]: noRuns(), [second.key]: noRuns() };
    await alternating(options.rounds, first.key, second.key, async (key, round) => {
      const label = `peers: ${key} · round ${round}/${options.rounds}`;
      await measurePlan(plan, servers.get(key) as Server, options, label, runs[key]);
    });
    return {
      rows: PEERS.map((info) => ({
        info,
        summary: summarize(runs[info.key].results, runs[info.key].peakRss),
        ...(counted.get(info.key) as { statements: number; transactionControl: number }),
      })),
    };
  } finally {
    for (const server of servers.values()) {
      await server.stop();
    }
  }
}
