import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { deriveKeys, type TokenSettings, verifyAccessToken } from '../lib/jwt';
import {
  gqlMeeting,
  gqlParticipant,
  gqlUser,
  participantOf,
  restMeeting,
  restParticipant,
  restUser,
  userOf,
  type UserRow,
} from './records';
import { createPool, type MeetingJoinRow, Refusal, Store } from './store';

/**
 * The baseline: a bare node:http server over `pg` doing what the service does for the benchmark
 * scenarios (verify the bearer token, load the caller, run the SQL, answer the same JSON bytes),
 * written for speed. It is the practical limit of this stack that the service is measured against.
 *
 * Env: DATABASE_URL, PORT, HOST (127.0.0.1), JWT_SECRET, JWT_ISSUER, JWT_AUDIENCE, DB_POOL_SIZE.
 * GET /__stats answers {"requests":n,"statements":n} (itself not counted).
 */

const env = process.env;
const settings: TokenSettings = {
  issuer: env['JWT_ISSUER'] ?? 'http://localhost:8000',
  audience: env['JWT_AUDIENCE'] ?? 'meeting-api',
};
const keys = deriveKeys(env['JWT_SECRET'] ?? 'dev-only-signing-secret-change-me');
const pool = createPool(
  env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/bench',
  Number(env['DB_POOL_SIZE'] ?? 10),
);
const store = new Store(pool);
let requests = 0;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PARTICIPANT_STATUSES = new Set(['new', 'accepted', 'declined']);
const JSON_TYPE = 'application/json; charset=utf-8';

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

const sendError = (res: ServerResponse, status: number, code: string): void =>
  send(res, status, `{"errors":"${code}"}`);

function sendUnauthenticated(res: ServerResponse, reason: string): void {
  res.setHeader(
    'www-authenticate',
    reason === 'INVALID_TOKEN' ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"',
  );
  sendError(res, 401, reason);
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The caller, or the reason there is none (the service's rules: active, not deleted). */
async function authenticate(req: IncomingMessage): Promise<UserRow | string> {
  const header = req.headers.authorization;
  if (!header || !/^Bearer(\s|$)/i.test(header)) {
    return 'NOT_AUTHENTICATED';
  }
  const token = BEARER.exec(header)?.[1];
  const userId = token ? verifyAccessToken(keys.publicKey, settings, token) : null;
  if (!userId) {
    return 'INVALID_TOKEN';
  }
  const user = await store.user(userId.toLowerCase());
  if (!user || !user.is_active || user.deleted_at !== null) {
    return 'INVALID_TOKEN';
  }
  return user;
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      if (chunks.length === 0) {
        resolve({});
        return;
      }
      try {
        const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        resolve(
          typeof value === 'object' && value !== null && !Array.isArray(value)
            ? (value as Record<string, unknown>)
            : {},
        );
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** Integer query parameters with the service's defaults and bounds (422 otherwise). */
function pageOf(
  query: URLSearchParams,
  defaultLimit: number | null,
): { skip: number; limit: number | null } | null {
  const skipText = query.get('skip');
  const limitText = query.get('limit');
  const skip = skipText === null ? 0 : Number(skipText);
  const limit = limitText === null ? defaultLimit : Number(limitText);
  if (!Number.isInteger(skip) || skip < 0) {
    return null;
  }
  if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
    return null;
  }
  return { skip, limit };
}

/** Meeting rows joined with participants and users → one record per meeting, in row order. */
function groupMeetings(
  rows: readonly MeetingJoinRow[],
  style: 'rest' | 'graphql',
): { id: string; ownerId: string; userIds: string[]; record: object }[] {
  const meetingRecord = style === 'rest' ? restMeeting : gqlMeeting;
  const participantRecord = style === 'rest' ? restParticipant : gqlParticipant;
  const userRecord = style === 'rest' ? restUser : gqlUser;
  const meetings: { id: string; ownerId: string; userIds: string[]; record: object }[] = [];
  let current: { id: string; ownerId: string; userIds: string[]; record: object } | null = null;
  let participants: object[] = [];
  for (const row of rows) {
    if (current === null || current.id !== row.id) {
      participants = [];
      current = {
        id: row.id,
        ownerId: row.owner_id,
        userIds: [],
        record: meetingRecord(row, participants),
      };
      meetings.push(current);
    }
    if (row.p_id !== null) {
      current.userIds.push(row.p_user_id as string);
      participants.push(participantRecord(participantOf(row), userRecord(userOf(row))));
    }
  }
  return meetings;
}

/** One meeting the viewer may see (owner, participant, admin), else null. */
async function visibleMeeting(
  viewer: UserRow,
  meetingId: string,
  style: 'rest' | 'graphql',
): Promise<object | null> {
  const [meeting] = groupMeetings(await store.meetingWithParticipants(meetingId), style);
  if (!meeting) {
    return null;
  }
  const isAdmin = viewer.roles === 'admin' || viewer.is_superuser;
  if (isAdmin || meeting.ownerId === viewer.id || meeting.userIds.includes(viewer.id)) {
    return meeting.record;
  }
  return null;
}

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, '\\$&');

async function restRoute(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  const segments = path.split('/'); // ['', 'api', 'v1', area, ...]
  const area = segments[3];
  const method = req.method;
  const viewer = await authenticate(req);
  if (typeof viewer === 'string') {
    sendUnauthenticated(res, viewer);
    return;
  }
  if (method === 'GET' && area === 'meeting' && segments.length === 5) {
    if (segments[4] === 'requests') {
      const page = pageOf(query, 100);
      if (!page) {
        send(res, 422, '{"errors":{"limit":"VALIDATION_LIMIT_INVALID_FORMAT"}}');
        return;
      }
      const rows = await store.requests(viewer.id, page.skip, page.limit);
      const user = restUser(viewer);
      send(res, 200, JSON.stringify(rows.map((row) => restParticipant(row, user))));
      return;
    }
    const meetingId = (segments[4] ?? '').toLowerCase();
    if (!UUID.test(meetingId)) {
      send(res, 422, '{"errors":{"meeting_id":"VALIDATION_MEETING_ID_INVALID_UUID"}}');
      return;
    }
    const meeting = await visibleMeeting(viewer, meetingId, 'rest');
    if (!meeting) {
      sendError(res, 404, 'MEETING_NOT_FOUND');
      return;
    }
    send(res, 200, JSON.stringify(meeting));
    return;
  }
  if (method === 'GET' && area === 'user' && segments[4] === 'search' && segments.length === 5) {
    const q = (query.get('q') ?? '').trim();
    const page = pageOf(query, 20);
    if (q.length < 2 || q.length > 100 || !page) {
      send(res, 422, '{"errors":{"q":"VALIDATION_Q_TOO_SHORT"}}');
      return;
    }
    const { rows, count } = await store.search(
      q,
      `%${escapeLike(q)}%`,
      page.skip,
      page.limit ?? 20,
    );
    send(res, 200, JSON.stringify({ data: rows.map(restUser), count }));
    return;
  }
  if (method === 'GET' && area === 'follow' && segments[4] === 'following') {
    const page = pageOf(query, null);
    if (!page) {
      send(res, 422, '{"errors":{"limit":"VALIDATION_LIMIT_INVALID_FORMAT"}}');
      return;
    }
    const { rows, count } = await store.following(viewer.id, page.skip, page.limit);
    const data = rows.map((row) => ({
      id: row.id,
      following_id: row.following_id,
      user: restUser(userOf(row)),
      created_at: row.created_at,
      updated_at: row.updated_at,
    }));
    send(res, 200, JSON.stringify({ data, count }));
    return;
  }
  if (method === 'POST' && area === 'meeting' && segments.length === 7) {
    const meetingId = (segments[4] ?? '').toLowerCase();
    if (segments[5] === 'participants' && segments[6] === 'add') {
      const body = await readJson(req);
      const userId = typeof body['user_id'] === 'string' ? body['user_id'].toLowerCase() : '';
      const status = body['status'] === undefined ? 'new' : body['status'];
      if (!UUID.test(meetingId) || !UUID.test(userId) || typeof status !== 'string') {
        send(res, 422, '{"errors":{"user_id":"VALIDATION_USER_ID_INVALID_UUID"}}');
        return;
      }
      if (!PARTICIPANT_STATUSES.has(status)) {
        send(res, 422, '{"errors":{"status":"VALIDATION_STATUS_INVALID_CHOICE"}}');
        return;
      }
      const added = await store.addParticipant(viewer, meetingId, userId, status);
      send(res, 200, JSON.stringify(restParticipant(added.participant, restUser(added.user))));
      return;
    }
  }
  if (
    method === 'POST' &&
    area === 'meeting' &&
    segments.length === 6 &&
    segments[5] === 'approve'
  ) {
    const meetingId = (segments[4] ?? '').toLowerCase();
    if (!UUID.test(meetingId)) {
      send(res, 422, '{"errors":{"meeting_id":"VALIDATION_MEETING_ID_INVALID_UUID"}}');
      return;
    }
    await store.approve(viewer, meetingId);
    send(res, 200, '{"message":"Meeting approved successfully"}');
    return;
  }
  sendError(res, 404, 'NOT_FOUND');
}

/** The two GraphQL operations of the benchmark, recognised by their operation name. */
async function graphqlRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  const variables = (body['variables'] ?? {}) as Record<string, unknown>;
  const viewer = await authenticate(req);
  if (typeof viewer === 'string') {
    send(
      res,
      200,
      `{"errors":[{"message":"${viewer}","extensions":{"code":"UNAUTHENTICATED","reason":"${viewer}"}}],"data":null}\n`,
    );
    return;
  }
  if (body['operationName'] === 'BenchMeeting') {
    const meetingId = String(variables['meetingId'] ?? '').toLowerCase();
    const meeting = UUID.test(meetingId)
      ? await visibleMeeting(viewer, meetingId, 'graphql')
      : null;
    if (!meeting) {
      send(
        res,
        200,
        '{"errors":[{"message":"Meeting not found","extensions":{"code":"NOT_FOUND","reason":"MEETING_NOT_FOUND"}}],"data":null}\n',
      );
      return;
    }
    send(res, 200, `${JSON.stringify({ data: { meeting } })}\n`);
    return;
  }
  if (body['operationName'] === 'BenchMyMeetings') {
    const limit = variables['limit'] === undefined ? 100 : Number(variables['limit']);
    const skip = variables['skip'] === undefined ? 0 : Number(variables['skip']);
    const rows = await store.myMeetings(viewer.id, skip, limit);
    const myMeetings = groupMeetings(rows, 'graphql').map((meeting) => meeting.record);
    send(res, 200, `${JSON.stringify({ data: { myMeetings } })}\n`);
    return;
  }
  send(res, 400, '{"errors":[{"message":"unknown operation"}]}\n');
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  if (path === '/__stats') {
    send(res, 200, JSON.stringify({ requests, statements: store.statements }));
    return;
  }
  if (path === '/health/readiness') {
    res.writeHead(204).end();
    return;
  }
  requests += 1;
  try {
    if (path.startsWith('/api/v1/')) {
      await restRoute(req, res, path, new URLSearchParams(mark === -1 ? '' : url.slice(mark + 1)));
    } else if (path === '/graphql' && req.method === 'POST') {
      await graphqlRoute(req, res);
    } else {
      sendError(res, 404, 'NOT_FOUND');
    }
  } catch (error) {
    if (error instanceof Refusal) {
      sendError(res, error.status, error.code);
      return;
    }
    process.stderr.write(`baseline: ${error instanceof Error ? error.stack : String(error)}\n`);
    if (!res.headersSent) {
      sendError(res, 500, 'INTERNAL_ERROR');
    }
  }
}

const server = createServer((req, res) => {
  void handle(req, res);
});
server.keepAliveTimeout = 65_000;

function shutdown(): void {
  server.close(() => {
    void pool.end().then(() => process.exit(0));
  });
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

server.listen(Number(env['PORT'] ?? 8001), env['HOST'] ?? '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ msg: 'baseline started', port: env['PORT'] })}\n`);
});
