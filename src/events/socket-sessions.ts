import type { IncomingMessage } from 'node:http';
import { CloseCode } from 'graphql-ws';
import { decodeJwt } from 'jose';
import type { WebSocket } from 'ws';
import { authenticate, bearerToken } from '../auth/authenticate';
import type { AppDependencies, RequestInfo } from '../context';
import type { UserRecord } from '../modules/user/user.store';
import type { LiveMetrics } from '../observability/metrics';
import { createStores } from '../stores';

/** What the socket learned in `connection_init`: who, with which token, from where. */
export interface SocketSession {
  user: UserRecord;
  request: RequestInfo;
  /** Closes the socket with a protocol close code (once). */
  close(code: number, reason: string): void;
  /** Stops the session's timers and gives its place back (called when the socket closes). */
  end(): void;
}

/** Why a socket was refused at `connection_init`: graphql-ws's Forbidden, or too many sockets. */
export type Refusal = { code: number; reason: string };

/** The `Authorization` value of a `connection_init` payload (either letter case). */
function authorizationOf(
  params: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const value = params?.['Authorization'] ?? params?.['authorization'];
  return typeof value === 'string' ? value : undefined;
}

/** Milliseconds until the token expires (`exp`); verified already, so decoding is enough. */
function msUntilExpiry(authorization: string | undefined): number | null {
  const token = bearerToken(authorization);
  const exp = token ? decodeJwt(token).exp : undefined;
  return typeof exp === 'number' ? exp * 1000 - Date.now() : null;
}

/**
 * The authenticated sockets of this instance: a socket is let in once, in `connection_init`, with
 * the same bearer tokens (and rules) as HTTP; it is closed when its token expires, and a user may
 * hold at most `perUser` of them at a time.
 */
export class SocketSessions {
  private readonly byUser = new Map<string, number>();

  constructor(
    private readonly deps: AppDependencies,
    private readonly perUser: number,
    private readonly metrics: LiveMetrics | null,
  ) {}

  /** Authenticates a `connection_init`: a session, or the refusal to close the socket with. */
  async open(
    socket: WebSocket,
    request: IncomingMessage,
    params: Readonly<Record<string, unknown>> | undefined,
  ): Promise<SocketSession | Refusal> {
    const authorization = authorizationOf(params);
    const users = createStores(this.deps.orm.em.fork()).users;
    const auth = await authenticate(authorization, users, this.deps.tokens);
    if (auth.failure !== null) {
      return { code: CloseCode.Forbidden, reason: 'Forbidden' };
    }
    const userId = auth.user.id;
    const open = this.byUser.get(userId) ?? 0;
    if (open >= this.perUser) {
      return { code: CloseCode.TooManyInitialisationRequests, reason: 'Too many sockets' };
    }
    this.byUser.set(userId, open + 1);
    this.metrics?.socketsOpen.inc();
    let closed = false;
    const close = (code: number, reason: string): void => {
      if (!closed) {
        closed = true;
        socket.close(code, reason);
      }
    };
    const remaining = msUntilExpiry(authorization);
    // The socket lives no longer than the token that opened it (timers hold 32-bit delays).
    const expiry =
      remaining === null
        ? null
        : setTimeout(
            () => close(CloseCode.Forbidden, 'Token expired'),
            Math.min(Math.max(remaining, 0), 2 ** 31 - 1),
          );
    expiry?.unref();
    let ended = false;
    return {
      user: auth.user,
      request: { authorization, ip: request.socket.remoteAddress ?? 'unknown' },
      close,
      end: () => {
        if (ended) {
          return;
        }
        ended = true;
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
  }
}
