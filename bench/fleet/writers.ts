import { call, errorCodes, type Reply, type Tally } from './calls';
import type { Cast, Member } from './people';

/*
 * The fleet run's writers. Each writes in a loop, every write with an Idempotency-Key that it
 * sends again, unchanged, until the write is acknowledged (a 2xx without errors), as a client
 * that must not lose or double a write does; then it reads what it wrote, to catch a read that
 * misses the caller's own earlier write. Three writes in turn:
 *   - createMeeting (GraphQL) with an extra user as guest, title `fleet w<w> n<n>`; read back by
 *     GraphQL with X-Read-After;
 *   - add another extra user to that meeting (REST); read back by REST GET with no header at all (the
 *     service keeps the caller's last write position);
 *   - updateMeeting (GraphQL) of one of its watched meetings (their guests subscribe), a new
 *     description; read back by GraphQL with no header.
 */

const CREATE =
  'mutation ($input: CreateMeetingInput!) { createMeeting(input: $input) { meeting { id } } }';
const UPDATE =
  'mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }';
const READ = 'query ($id: UUID!) { meeting(meetingId: $id) { id description } }';

/** Retried: no answer, 5xx, a key still held by an attempt under way, a limit. */
const RETRIED_CODES = new Set([
  'SERVICE_UNAVAILABLE',
  'IDEMPOTENCY_KEY_IN_USE',
  'INTERNAL_ERROR',
  'TOO_MANY_REQUESTS',
]);
const RETRY_MS = 200;
/** A write not acknowledged within this is given up (reported; none should be). */
const GIVE_UP_MS = 120_000;

export interface WriteRecord {
  kind: 'create' | 'add' | 'update';
  key: string;
  meetingId: string | null;
  /** The create's title, the add's user, the update's description. */
  value: string;
  acknowledged: boolean;
  attempts: number;
  /** A retry answered as if the write were new and already made (its first attempt counted). */
  doubled: boolean;
}

export interface ReadCheck {
  kind: 'create' | 'add' | 'update';
  how: 'X-Read-After' | 'no header';
  missed: boolean;
  detail?: string;
}

export class Writers {
  readonly writes: WriteRecord[] = [];
  readonly reads: ReadCheck[] = [];
  /** Writes refused for a reason retrying cannot mend (a defect of the run or the service). */
  readonly refused: string[] = [];
  private running = true;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly cast: Cast,
    private readonly tally: Tally,
  ) {}

  start(): void {
    this.loops = this.cast.writers.map((writer, w) => this.loop(writer, w));
  }

  /** Stops after each writer's write under way (retried to its end). */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(writer: Member, w: number): Promise<void> {
    const mine = this.cast.watched.filter((_m, i) => i % this.cast.writers.length === w);
    for (let n = 0; this.running; n += 1) {
      const extra = (k: number) =>
        this.cast.extras[(w * 7919 + 2 * n + k) % this.cast.extras.length] as string;
      const made = await this.create(writer, w, n, extra(0));
      if (made) {
        await this.add(writer, made, extra(1));
      }
      await this.update(writer, mine[n % mine.length] as string, `fleet w${w} n${n}`);
    }
  }

  /** Sends until acknowledged: the reply, or null when given up or refused. */
  private async keyed(
    record: WriteRecord,
    send: (headers: Record<string, string>) => Promise<Reply>,
  ): Promise<Reply | null> {
    this.writes.push(record);
    const until = performance.now() + GIVE_UP_MS;
    while (performance.now() < until) {
      record.attempts += 1;
      const reply = await send({ 'idempotency-key': record.key });
      this.tally.count(reply);
      const codes = errorCodes(reply.body);
      if (reply.status !== null && reply.status < 300 && codes.length === 0) {
        record.acknowledged = true;
        return reply;
      }
      if (codes.includes('USER_ALREADY_A_PARTICIPANT') && record.attempts > 1) {
        record.doubled = true; // the retry ran the write again instead of answering the first
        return null;
      }
      const retried =
        reply.status === null || reply.status >= 500 || codes.some((c) => RETRIED_CODES.has(c));
      if (!retried) {
        this.refused.push(`${record.kind} ${reply.status}: ${JSON.stringify(reply.body)}`);
        return null;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    return null;
  }

  private async create(
    writer: Member,
    w: number,
    n: number,
    guest: string,
  ): Promise<string | null> {
    const title = `fleet w${w} n${n}`;
    const record: WriteRecord = {
      kind: 'create',
      key: `fleet-create-${w}-${n}-${process.pid}`,
      meetingId: null,
      value: title,
      acknowledged: false,
      attempts: 0,
      doubled: false,
    };
    const input = {
      meeting: {
        title,
        startTime: new Date(Date.now() + 86_400_000).toISOString(),
        location: 'Fleet room',
        reminderMinutes: [],
      },
      participants: [{ userId: guest }],
    };
    const reply = await this.keyed(record, (headers) =>
      call(this.baseUrl, 'POST', '/graphql', {
        token: writer.token,
        json: { query: CREATE, variables: { input } },
        headers,
      }),
    );
    const id = (reply?.body as { data?: { createMeeting?: { meeting?: { id?: string } } } } | null)
      ?.data?.createMeeting?.meeting?.id;
    if (!reply || !id) {
      return null;
    }
    record.meetingId = id;
    const position = reply.headers?.get('x-read-after');
    const read = await this.graphqlRead(writer, id, position ? { 'x-read-after': position } : {});
    this.reads.push({
      kind: 'create',
      how: 'X-Read-After',
      missed: read === undefined,
      ...(position ? {} : { detail: 'the write answered no X-Read-After' }),
    });
    return id;
  }

  private async add(writer: Member, meetingId: string, userId: string): Promise<void> {
    const record: WriteRecord = {
      kind: 'add',
      key: `fleet-add-${meetingId}`,
      meetingId,
      value: userId,
      acknowledged: false,
      attempts: 0,
      doubled: false,
    };
    const reply = await this.keyed(record, (headers) =>
      call(this.baseUrl, 'POST', `/api/v1/meeting/${meetingId}/participants/add`, {
        token: writer.token,
        json: { user_id: userId },
        headers,
      }),
    );
    if (!reply) {
      return;
    }
    const read = await this.settledRead(() =>
      call(this.baseUrl, 'GET', `/api/v1/meeting/${meetingId}`, { token: writer.token }),
    );
    const participants = (read?.body as { participants?: { user_id: string }[] } | null)
      ?.participants;
    this.reads.push({
      kind: 'add',
      how: 'no header',
      missed: !participants?.some((p) => p.user_id === userId),
    });
  }

  private async update(writer: Member, meetingId: string, description: string): Promise<void> {
    const record: WriteRecord = {
      kind: 'update',
      key: `fleet-update-${description.replaceAll(' ', '-')}-${process.pid}`,
      meetingId,
      value: description,
      acknowledged: false,
      attempts: 0,
      doubled: false,
    };
    const reply = await this.keyed(record, (headers) =>
      call(this.baseUrl, 'POST', '/graphql', {
        token: writer.token,
        json: { query: UPDATE, variables: { input: { meetingId, description } } },
        headers,
      }),
    );
    if (!reply) {
      return;
    }
    const read = await this.graphqlRead(writer, meetingId, {});
    this.reads.push({ kind: 'update', how: 'no header', missed: read !== description });
  }

  /**
   * The meeting's description read by GraphQL (undefined: not found). A read that gets no answer
   * or a 5xx (a fault under way) is sent again: only an answer can miss a write.
   */
  private async graphqlRead(
    writer: Member,
    id: string,
    headers: Record<string, string>,
  ): Promise<string | null | undefined> {
    const reply = await this.settledRead(() =>
      call(this.baseUrl, 'POST', '/graphql', {
        token: writer.token,
        json: { query: READ, variables: { id } },
        headers,
      }),
    );
    const meeting = (
      reply?.body as { data?: { meeting?: { description: string | null } | null } } | null
    )?.data?.meeting;
    return meeting ? meeting.description : undefined;
  }

  private async settledRead(send: () => Promise<Reply>): Promise<Reply | null> {
    const until = performance.now() + GIVE_UP_MS;
    while (performance.now() < until) {
      const reply = await send();
      this.tally.count(reply);
      const codes = errorCodes(reply.body);
      if (
        reply.status !== null &&
        reply.status < 500 &&
        !codes.some((code) => RETRIED_CODES.has(code))
      ) {
        return reply;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    return null;
  }
}
