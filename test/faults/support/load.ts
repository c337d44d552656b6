import { request as httpRequest } from 'node:http';

/** One request as the load saw it. */
export interface Outcome {
  op: 'register' | 'follow' | 'me' | 'graphql-me' | 'graphql-register';
  face: 'rest' | 'graphql';
  /** performance.now() at send and at the end. */
  start: number;
  end: number;
  ms: number;
  /** HTTP status, or null when there was no response (connection error, timeout). */
  status: number | null;
  body: unknown;
  error?: string;
}

export interface CallOptions {
  token?: string;
  json?: unknown;
  timeoutMs?: number;
  /** Sent as `Idempotency-Key`. */
  idempotencyKey?: string;
  /** More request headers. */
  headers?: Record<string, string>;
}

function errorName(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') {
      return 'TIMEOUT';
    }
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}

/** A request with fetch (pooled keep-alive connections), measured; never throws. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<{
  status: number | null;
  body: unknown;
  /** The response's headers (null when there was no response). */
  headers: Headers | null;
  ms: number;
  start: number;
  error?: string;
}> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) {
    headers['authorization'] = `Bearer ${options.token}`;
  }
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
  }
  if (options.idempotencyKey !== undefined) {
    headers['idempotency-key'] = options.idempotencyKey;
  }
  const start = performance.now();
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return {
      status: response.status,
      body,
      headers: response.headers,
      ms: performance.now() - start,
      start,
    };
  } catch (error) {
    return {
      status: null,
      body: null,
      headers: null,
      ms: performance.now() - start,
      start,
      error: errorName(error),
    };
  }
}

/**
 * A request on a connection of its own (no keep-alive pool), reporting when the request has been
 * fully written; never throws.
 */
export function callOnNewConnection(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions & { onSent?: (localPort: number) => void } = {},
): Promise<{ status: number | null; body: unknown; ms: number; error?: string }> {
  const start = performance.now();
  return new Promise((resolve) => {
    const payload = options.json === undefined ? undefined : JSON.stringify(options.json);
    const headers: Record<string, string> = { connection: 'close' };
    if (options.token) {
      headers['authorization'] = `Bearer ${options.token}`;
    }
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const req = httpRequest(`${baseUrl}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) =>
        resolve({ status: null, body: null, ms: performance.now() - start, error: error.message }),
      );
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? null, body, ms: performance.now() - start });
      });
    });
    req.setTimeout(options.timeoutMs ?? 15_000, () => req.destroy(new Error('TIMEOUT')));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({
        status: null,
        body: null,
        ms: performance.now() - start,
        error: error.code ?? error.message,
      }),
    );
    req.on('finish', () => options.onSent?.(req.socket?.localPort ?? 0));
    req.end(payload);
  });
}

/** A registered user, as acknowledged by the service. */
export interface User {
  id: string;
  account: string;
  email: string;
}

export const PASSWORD = 'correct-horse-battery';

/** Registration fields for a unique user. */
export function newUser(tag: string): { name: string; account: string; email: string } {
  const account = tag.toLowerCase().slice(0, 32);
  return { name: `Fault user ${tag}`.slice(0, 40), account, email: `${account}@example.test` };
}

export async function register(baseUrl: string, tag: string, timeoutMs?: number) {
  const fields = newUser(tag);
  return call(baseUrl, 'POST', '/api/v1/auth/register', {
    json: { ...fields, password: PASSWORD, password_confirm: PASSWORD },
    timeoutMs,
  });
}

/** Registers and logs in a user; throws unless both succeed. */
export async function registerAndLogin(
  baseUrl: string,
  tag: string,
): Promise<User & { token: string }> {
  const registered = await register(baseUrl, tag);
  if (registered.status !== 201) {
    throw new Error(`register ${tag}: ${registered.status} ${JSON.stringify(registered.body)}`);
  }
  const user = registered.body as User;
  const login = await call(baseUrl, 'POST', '/api/v1/auth/login', {
    json: { email: user.email, password: PASSWORD },
  });
  if (login.status !== 200) {
    throw new Error(`login ${tag}: ${login.status} ${JSON.stringify(login.body)}`);
  }
  return { ...user, token: (login.body as { access_token: string }).access_token };
}

/**
 * The contract's 503: REST `{"errors":"SERVICE_UNAVAILABLE"}`; GraphQL every error coded
 * SERVICE_UNAVAILABLE, with HTTP 503 — or 200 when a resolver failed after the request started
 * (GraphQL's usual "errors in a 200"), never a 500.
 */
export function isServiceUnavailable(outcome: Pick<Outcome, 'face' | 'status' | 'body'>): boolean {
  if (outcome.face === 'rest') {
    return (
      outcome.status === 503 &&
      JSON.stringify(outcome.body) === JSON.stringify({ errors: 'SERVICE_UNAVAILABLE' })
    );
  }
  const errors = (outcome.body as { errors?: Array<{ extensions?: { code?: string } }> } | null)
    ?.errors;
  return (
    (outcome.status === 503 || outcome.status === 200) &&
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((error) => error.extensions?.code === 'SERVICE_UNAVAILABLE')
  );
}

/** A success: 2xx, and for GraphQL no errors. */
export function isSuccess(outcome: Pick<Outcome, 'face' | 'status' | 'body'>): boolean {
  if (outcome.status === null || outcome.status < 200 || outcome.status > 299) {
    return false;
  }
  return outcome.face === 'rest' || !(outcome.body as { errors?: unknown } | null)?.errors;
}

/** Outcomes grouped by operation, status and error code: `{"graphql-me 500 INTERNAL_SERVER_ERROR": 3}`. */
export function tally(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const body = outcome.body as { errors?: unknown } | null;
    const errors = body?.errors;
    const code = Array.isArray(errors)
      ? String((errors[0] as { extensions?: { code?: string } }).extensions?.code)
      : typeof errors === 'string'
        ? errors
        : '';
    const key = `${outcome.op} ${outcome.status ?? outcome.error}${code ? ` ${code}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Short text of an outcome for failure messages. */
export function describeOutcome(outcome: Outcome): string {
  const body = JSON.stringify(outcome.body) ?? '';
  return `${outcome.op} ${outcome.status ?? outcome.error} ${Math.round(outcome.ms)}ms ${body.slice(0, 160)}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Steady mixed load from a few clients: each registers new users, follows users already
 * acknowledged, and reads /user/me (REST) and `me` (GraphQL). Every acknowledged write is kept.
 */
export class MixedLoad {
  readonly users: User[] = [];
  readonly follows: Array<{ follower: string; following: string }> = [];
  readonly outcomes: Outcome[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private actors: Array<User & { token: string }> = [];
  private counter = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly options: {
      clients: number;
      tag: string;
      /** Pause between one client's requests. */
      pauseMs?: number;
      timeoutMs?: number;
      graphql?: boolean;
    },
  ) {}

  /** Each client's own user, registered and logged in. */
  async setup(): Promise<void> {
    this.actors = await Promise.all(
      Array.from({ length: this.options.clients }, (_, k) =>
        registerAndLogin(this.baseUrl, `${this.options.tag}a${k}`),
      ),
    );
    this.users.push(...this.actors.map(({ id, account, email }) => ({ id, account, email })));
  }

  get actorUsers(): ReadonlyArray<User & { token: string }> {
    return this.actors;
  }

  start(): void {
    this.running = true;
    this.loops = this.actors.map((actor, k) => this.client(actor, k));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async client(actor: User & { token: string }, k: number): Promise<void> {
    let step = k;
    while (this.running) {
      step += 1;
      const kind = step % 5;
      if (kind === 0) {
        await this.registerOne('rest');
      } else if (kind === 1) {
        await this.followOne(actor);
      } else if (kind === 2) {
        await this.measure('me', 'rest', () =>
          call(this.baseUrl, 'GET', '/api/v1/user/me', this.withTimeout({ token: actor.token })),
        );
      } else if (kind === 3) {
        // Authenticated: the context reads the caller, the resolver reads the follows.
        await this.measure('graphql-me', 'graphql', () =>
          call(
            this.baseUrl,
            'POST',
            '/graphql',
            this.withTimeout({
              token: actor.token,
              json: { query: '{ me { id account } following(limit: 5) { count } }' },
            }),
          ),
        );
      } else {
        // Anonymous: only the resolver touches the database.
        await this.registerOne('graphql');
      }
      await sleep(this.options.pauseMs ?? 10);
    }
  }

  private withTimeout(options: CallOptions): CallOptions {
    return { ...options, timeoutMs: this.options.timeoutMs ?? 15_000 };
  }

  private async registerOne(face: 'rest' | 'graphql'): Promise<void> {
    this.counter += 1;
    const tag = `${this.options.tag}${face === 'rest' ? 'r' : 'g'}${this.counter}`;
    if (face === 'rest') {
      const outcome = await this.measure('register', 'rest', () =>
        register(this.baseUrl, tag, this.options.timeoutMs),
      );
      if (outcome.status === 201) {
        const { id, account, email } = outcome.body as User;
        this.users.push({ id, account, email });
      }
      return;
    }
    const fields = newUser(tag);
    const outcome = await this.measure('graphql-register', 'graphql', () =>
      call(
        this.baseUrl,
        'POST',
        '/graphql',
        this.withTimeout({
          json: {
            query: `mutation ($name: String!, $account: String!, $email: String!, $password: String!) {
              register(input: { name: $name, account: $account, email: $email,
                password: $password, passwordConfirm: $password }) { user { id account email } }
            }`,
            variables: { ...fields, password: PASSWORD },
          },
        }),
      ),
    );
    const registered = (outcome.body as { data?: { register?: { user?: User } } } | null)?.data
      ?.register?.user;
    if (isSuccess(outcome) && registered) {
      this.users.push({ id: registered.id, account: registered.account, email: registered.email });
    }
  }

  private async followOne(actor: User & { token: string }): Promise<void> {
    const candidates = this.users.filter((user) => user.id !== actor.id);
    const target = candidates[Math.floor(Math.random() * candidates.length)];
    if (!target) {
      return;
    }
    const outcome = await this.measure('follow', 'rest', () =>
      call(
        this.baseUrl,
        'POST',
        `/api/v1/follow/follow/${target.id}`,
        this.withTimeout({ token: actor.token }),
      ),
    );
    if (outcome.status === 200) {
      this.follows.push({ follower: actor.id, following: target.id });
    }
  }

  private async measure(
    op: Outcome['op'],
    face: Outcome['face'],
    send: () => ReturnType<typeof call>,
  ): Promise<Outcome> {
    const result = await send();
    const outcome: Outcome = {
      op,
      face,
      start: result.start,
      end: result.start + result.ms,
      ms: result.ms,
      status: result.status,
      body: result.body,
      ...(result.error ? { error: result.error } : {}),
    };
    this.outcomes.push(outcome);
    return outcome;
  }
}
