import { join } from 'node:path';
import { ROOT } from './paths';
import type { PlannedRequest } from './protocol';
import type { ScenarioKey } from './scenarios';

/**
 * The peers of `--peers`: PostGraphile v5 (amber preset, bench/peers/postgraphile/, its own
 * package.json and lockfile) serving the benchmark database, asked for the 50-participant meeting
 * with the fields the `meeting-graphql` scenario asks of the service, once without authentication
 * and once verifying the same bearer token.
 */

export const PEER_DIR = join(ROOT, 'bench/peers/postgraphile');

export type PeerKey = 'postgraphile-no-auth' | 'postgraphile-token';

export interface PeerInfo {
  key: PeerKey;
  title: string;
  /** The peer's AUTH environment variable. */
  auth: 'none' | 'token';
}

export const PEERS: readonly PeerInfo[] = [
  { key: 'postgraphile-no-auth', title: 'PostGraphile v5 (amber), no auth', auth: 'none' },
  {
    key: 'postgraphile-token',
    title: 'PostGraphile v5, verifying the same EdDSA token',
    auth: 'token',
  },
];

/** The service's and the baseline's meeting scenarios, on which face. */
const MEETING_SCENARIOS = [
  { face: 'REST', id: 'rest', scenario: 'meeting-rest' },
  { face: 'GraphQL', id: 'graphql', scenario: 'meeting-graphql' },
] as const satisfies readonly { face: string; id: string; scenario: ScenarioKey }[];

type Face = (typeof MEETING_SCENARIOS)[number];
type Side = 'service' | 'baseline';

/** The targets of the peers pass: the service and the baseline on each face, and the peers. */
export type MeetingTargetKey = `${Side}-${Face['id']}` | PeerKey;

export type MeetingTarget = {
  key: MeetingTargetKey;
  title: string;
  /** The target whose req/s this one's "÷ baseline" divides by: the baseline of its face. */
  baselineKey: MeetingTargetKey;
} & ({ kind: 'ours'; side: Side; scenario: Face['scenario'] } | { kind: 'peer'; peer: PeerInfo });

/** What the peers pass times, in one rotation. */
export const MEETING_TARGETS: readonly MeetingTarget[] = [
  ...(['service', 'baseline'] as const).flatMap((side) =>
    MEETING_SCENARIOS.map(
      ({ face, id, scenario }): MeetingTarget => ({
        key: `${side}-${id}`,
        title: side === 'service' ? `service ${face}` : `bare baseline (${face})`,
        baselineKey: `baseline-${id}`,
        kind: 'ours',
        side,
        scenario,
      }),
    ),
  ),
  // PostGraphile answers GraphQL: divided by the GraphQL baseline.
  ...PEERS.map(
    (peer): MeetingTarget => ({
      key: peer.key,
      title: peer.title,
      baselineKey: 'baseline-graphql',
      kind: 'peer',
      peer,
    }),
  ),
];

/**
 * The meeting in PostGraphile's schema. Amber names the primary key `rowId` (its `id` is the
 * global Node id), relations by their foreign keys, and needs the participants' order spelled out.
 */
export const POSTGRAPHILE_MEETING =
  'query PeerMeeting($rowId: UUID!) { meetingByRowId(rowId: $rowId) { title ownerId startTime ' +
  'location rowId appointedById assignedToId type status locationUrl createdAt updatedAt ' +
  'participantsByMeetingId(orderBy: [CREATED_AT_ASC, ROW_ID_ASC]) { nodes { meetingId userId rowId ' +
  'userByUserId { name email account rowId roles isActive isVerified isSuperuser bio dob phone ' +
  'avatarPhotoId deletedAt createdAt updatedAt } status createdAt updatedAt } } } }';

/** The peers' meeting request, with the caller's bearer token (the no-auth peer ignores it). */
export function peerMeetingRequest(token: string, meetingId: string): PlannedRequest {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      operationName: 'PeerMeeting',
      query: POSTGRAPHILE_MEETING,
      variables: { rowId: meetingId },
    }),
  };
}

/** The service's field names that PostGraphile spells otherwise (lists: then its `nodes`). */
const PEER_NAMES: Readonly<Record<string, string>> = {
  id: 'rowId',
  appointedBy: 'appointedById',
  assignedTo: 'assignedToId',
  participants: 'participantsByMeetingId',
  user: 'userByUserId',
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * A scalar as both sides mean it: instants as ISO strings in UTC (PostGraphile answers
 * `+00:00` with microseconds), enum values in lower case with `_` (`ALL_HANDS`, `all_hands`;
 * the service's role list `[USER]` and PostGraphile's single `user`).
 */
function canonical(value: Json): string {
  if (Array.isArray(value)) {
    return value.map(canonical).join(',');
  }
  if (typeof value === 'string') {
    if (/^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(Date.parse(value))) {
      return new Date(value).toISOString();
    }
    return /^[A-Z][A-Z_]*$/.test(value) ? value.toLowerCase() : value;
  }
  return JSON.stringify(value);
}

/**
 * Where PostGraphile's answer holds other data than the service's: every field the service
 * answered, at every level, must be there under PostGraphile's name with the same value, lists in
 * the same order and of the same length, and nothing more.
 */
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function differences(service: Json, peer: Json, path: string, out: string[]): void {
  if (out.length >= 10) {
    return;
  }
  if (Array.isArray(service) && service.some((item) => item !== null && typeof item === 'object')) {
    // A list of records: PostGraphile's connection holds them in `nodes`.
    const nodes = isObject(peer) ? peer['nodes'] : peer;
    if (!Array.isArray(nodes) || nodes.length !== service.length) {
      out.push(
        `${path}: ${service.length} items in the service's answer, ${Array.isArray(nodes) ? nodes.length : 'no list'} in PostGraphile's`,
      );
      return;
    }
    service.forEach((item, i) => differences(item, nodes[i] as Json, `${path}[${i}]`, out));
    return;
  }
  if (isObject(service)) {
    if (!isObject(peer)) {
      out.push(
        `${path}: a record in the service's answer, ${JSON.stringify(peer)} in PostGraphile's`,
      );
      return;
    }
    const keys = Object.keys(service);
    if (Object.keys(peer).length !== keys.length) {
      out.push(
        `${path}: fields ${keys.join(' ')} in the service's answer, ${Object.keys(peer).join(' ')} in PostGraphile's`,
      );
    }
    for (const key of keys) {
      const name = PEER_NAMES[key] ?? key;
      if (!(name in peer)) {
        out.push(`${path}.${key}: PostGraphile's answer has no ${name}`);
        continue;
      }
      differences(service[key] as Json, peer[name] as Json, `${path}.${key}`, out);
    }
    return;
  }
  if (canonical(service) !== canonical(peer)) {
    out.push(
      `${path}: ${JSON.stringify(service)} from the service, ${JSON.stringify(peer)} from PostGraphile`,
    );
  }
}

/** Problems with a peer's meeting answer against the service's GraphQL answer (none: same data). */
export function peerAnswerProblems(serviceBody: string, peerBody: string): string[] {
  const service = (JSON.parse(serviceBody) as { data?: { meeting?: Json } }).data?.meeting;
  let peer: Json | undefined;
  try {
    peer = (JSON.parse(peerBody) as { data?: { meetingByRowId?: Json } }).data?.meetingByRowId;
  } catch {
    return [`not JSON: ${peerBody.slice(0, 300)}`];
  }
  if (service === undefined || service === null) {
    return ['the service did not answer the meeting'];
  }
  if (peer === undefined || peer === null) {
    return [`no meetingByRowId in PostGraphile's answer: ${peerBody.slice(0, 300)}`];
  }
  const out: string[] = [];
  differences(service, peer, 'meeting', out);
  return out;
}
