import { CloseCode } from 'graphql-ws';
import { decodeJwt } from 'jose';
import { type AuthState, bearerToken, type RequestInfo } from '../auth/tokens';
import type { LiveMetrics } from '../observability/metrics';
import { type AppError, LiveLimitError, UnauthenticatedError } from '../shared/errors';

/**
 * One authenticated connection that carries subscriptions (a WebSocket, or an event stream):
 * who, with which token, from where.
 */
export interface LiveSession {
  user: LiveCaller;
  request: RequestInfo;
  /** Ends the connection (once): a WebSocket with this close code; an event stream ends. */
  close(code: number, reason: string): void;
  /** Stops the session's timer and gives its place back (called when the connection ends). */
  end(): void;
  /** Hears the cursor of each event about to be sent (an event stream writes it as its `id`). */
  delivered?: (cursor: string) => void;
}

/**
 * Why a connection was refused: a missing or bad token, or too many connections of one user.
 * `code` and `reason` close a WebSocket (graphql-ws's codes), `error` answers an HTTP request.
 */
export type Refusal = { code: number; reason: string; error: AppError };

export const isRefusal = (value: LiveSession | Refusal): value is Refusal => 'error' in value;

/** Milliseconds until the token expires (`exp`); verified already, so decoding is enough. */
function msUntilExpiry(authorization: string | undefined): number | null {
  const token = bearerToken(authorization);
  const exp = token ? decodeJwt(token).exp : undefined;
  return typeof exp === 'number' ? exp * 1000 - Date.now() : null;
}

/** Who holds a connection: all the live server needs to know of a user. */
export interface LiveCaller {
  id: string;
}

/** Reads the caller of an `Authorization` value afresh (given by the app: the platform knows no users). */
export type LiveAuthenticate = (
  authorization: string | undefined,
) => Promise<AuthState<LiveCaller>>;

/** The close of a connection whose token no longer authenticates (graphql-ws's 4403). */
const FORBIDDEN = { code: CloseCode.Forbidden, reason: 'Forbidden' } as const;

/**
 * The authenticated connections of this instance. One is let in once (a WebSocket in
 * `connection_init`, an event stream by its request's header) with the same bearer tokens and
 * rules as HTTP; it is closed when its token expires or its sign-in session ends (see
 * `recheck`), and a user may hold at most `perUser` connections at a time.
 */
export class LiveSessions {
  private readonly byUser = new Map<string, number>();
  private readonly open = new Set<LiveSession>();
  /** How many times sessions were reported ended: a connection let in meanwhile is checked again. */
  private endings = 0;

  constructor(
    private readonly authenticate: LiveAuthenticate,
    private readonly perUser: number,
    private readonly metrics: LiveMetrics | null,
  ) {}

  /** Authenticates a connection: its session, or the refusal to end it with. */
  async start(
    authorization: string | undefined,
    ip: string,
    endConnection: (code: number, reason: string) => void,
  ): Promise<LiveSession | Refusal> {
    const endings = this.endings;
    let auth = await this.authenticate(authorization);
    // A session that ended while this one was being let in was not yet here to be closed.
    if (auth.failure === null && this.endings !== endings) {
      auth = await this.authenticate(authorization);
    }
    if (auth.failure !== null) {
      return { ...FORBIDDEN, error: new UnauthenticatedError(auth.failure) };
    }
    const userId = auth.user.id;
    const held = this.byUser.get(userId) ?? 0;
    if (held >= this.perUser) {
      const error = new LiveLimitError('TOO_MANY_CONNECTIONS', this.perUser);
      return { code: CloseCode.TooManyInitialisationRequests, reason: 'Too many sockets', error };
    }
    this.byUser.set(userId, held + 1);
    this.metrics?.socketsOpen.inc();
    let closed = false;
    const close = (code: number, reason: string): void => {
      if (!closed) {
        closed = true;
        endConnection(code, reason);
      }
    };
    const remaining = msUntilExpiry(authorization);
    // A connection lives no longer than the token that opened it (timers hold 32-bit delays).
    const expiry =
      remaining === null
        ? null
        : setTimeout(
            () => close(CloseCode.Forbidden, 'Token expired'),
            Math.min(Math.max(remaining, 0), 2 ** 31 - 1),
          );
    expiry?.unref();
    let ended = false;
    const session: LiveSession = {
      user: auth.user,
      request: { authorization, ip },
      close,
      end: () => {
        if (ended) {
          return;
        }
        ended = true;
        this.open.delete(session);
        if (expiry) {
          clearTimeout(expiry);
        }
        this.metrics?.socketsOpen.dec();
        const left = (this.byUser.get(userId) ?? 1) - 1;
        if (left > 0) {
          this.byUser.set(userId, left);
        } else {
          this.byUser.delete(userId);
        }
      },
    };
    this.open.add(session);
    return session;
  }

  /**
   * Closes (4403) the open connections of `userId` (null: of anyone) whose token no longer
   * authenticates: its sign-in session ended, or its user was deactivated. Called when an instance
   * reports that sessions ended, so a connection does not wait for its next event to be closed.
   */
  async recheck(userId: string | null): Promise<void> {
    this.endings += 1;
    const sessions = [...this.open].filter(
      (session) => userId === null || session.user.id === userId,
    );
    await Promise.all(
      sessions.map(async (session) => {
        const auth = await this.authenticate(session.request.authorization);
        if (auth.failure !== null) {
          session.close(FORBIDDEN.code, FORBIDDEN.reason);
        }
      }),
    );
  }

  /** Ends every open connection (shutdown) with `code`. */
  closeAll(code: number, reason: string): void {
    for (const session of [...this.open]) {
      session.close(code, reason);
    }
  }
}
