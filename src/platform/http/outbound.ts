import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  AddressNotAllowedError,
  guardedLookup,
  isNonPublicAddress,
  literalAddress,
} from './address-guard';

/** One POST to a URL outside the service, with the guards every such request needs. */
export interface OutboundPost {
  url: string;
  body: string;
  headers: Readonly<Record<string, string>>;
  /** The whole exchange (connection, answer, body) ends by then. */
  timeoutMs: number;
  /** At most this much of the answer's body is read; the connection is closed after it. */
  maxResponseBytes: number;
  /** Private, loopback and link-local targets too (else refused before connecting). */
  allowPrivate: boolean;
  /** Only `https:` targets. */
  requireHttps: boolean;
  /** Ends the request early (a shutdown); the outcome then says `aborted`. */
  signal?: AbortSignal;
}

/** What became of an outbound request: the status it was answered with, or why none. */
export interface OutboundOutcome {
  /** The answer's HTTP status; null when there was none. */
  status: number | null;
  durationMs: number;
  /** Why there was no answer (a short, safe text: never the URL), or null. */
  error: string | null;
  /** Ended by `signal`, not by the target. */
  aborted: boolean;
}

/** Why a URL may not be called, or null when it may (its host is resolved only when sent). */
export function outboundUrlProblem(
  url: URL,
  policy: Pick<OutboundPost, 'allowPrivate' | 'requireHttps'>,
): 'INVALID_FORMAT' | 'HTTPS_REQUIRED' | 'PRIVATE_ADDRESS' | null {
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) {
    return 'INVALID_FORMAT';
  }
  if (policy.requireHttps && url.protocol !== 'https:') {
    return 'HTTPS_REQUIRED';
  }
  const address = literalAddress(url.hostname);
  if (!policy.allowPrivate && address !== null && isNonPublicAddress(address)) {
    return 'PRIVATE_ADDRESS';
  }
  return null;
}

const ERROR_TEXT: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPROTO: 'TLS handshake failed',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
};

/** A failure as a short text that names neither the URL nor anything the target sent. */
function describe(error: unknown): string {
  if (error instanceof AddressNotAllowedError) {
    return 'address not allowed (private, loopback or link-local)';
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    return ERROR_TEXT[code] ?? `request failed (${code})`;
  }
  return 'request failed';
}

/** Reads at most `limit` bytes of a body, then stops reading it. */
function drain(response: IncomingMessage, limit: number): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= limit) {
        // Enough: whatever else the target sends is not read.
        response.destroy();
        resolve();
      }
    });
    response.once('end', resolve);
    response.once('close', resolve);
    response.on('error', () => resolve());
  });
}

/**
 * POSTs `body` to `url`, guarded: only http(s) (https when required), no private, loopback or
 * link-local address unless allowed (checked on the address the connection is made to: the
 * name is resolved once, by the connection's own lookup), a fresh connection each time (no
 * pooled socket from an earlier check), no redirects followed, at most `maxResponseBytes` read,
 * everything within `timeoutMs`. Never rejects: a failure is an outcome.
 */
export async function postOutbound(post: OutboundPost): Promise<OutboundOutcome> {
  const started = performance.now();
  const outcome = (status: number | null, error: string | null, aborted = false) => ({
    status,
    durationMs: Math.round(performance.now() - started),
    error,
    aborted,
  });
  let url: URL;
  try {
    url = new URL(post.url);
  } catch {
    return outcome(null, 'invalid URL');
  }
  const problem = outboundUrlProblem(url, post);
  if (problem === 'PRIVATE_ADDRESS') {
    return outcome(null, describe(new AddressNotAllowedError()));
  }
  if (problem !== null) {
    return outcome(null, problem === 'HTTPS_REQUIRED' ? 'https required' : 'invalid URL');
  }
  const body = Buffer.from(post.body);
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...post.headers, 'content-length': String(body.length) },
    // A connection of its own: a pooled socket would skip the lookup (and its check).
    agent: false,
    lookup: guardedLookup(post.allowPrivate),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<OutboundOutcome>((resolve) => {
    let settled = false;
    const finish = (result: OutboundOutcome): void => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        post.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      }
    };
    const request = send(url, options, (response) => {
      void drain(response, post.maxResponseBytes).then(() => {
        finish(outcome(response.statusCode ?? null, null));
        request.destroy();
      });
    });
    const timer = setTimeout(() => {
      finish(outcome(null, `timed out after ${post.timeoutMs} ms`));
      request.destroy();
    }, post.timeoutMs);
    const onAbort = (): void => {
      finish(outcome(null, 'aborted', true));
      request.destroy();
    };
    // First, and `on`, not `once`: a request destroyed (a timeout, an abort, a shutdown) emits
    // 'error' ('socket hang up'), after its own error too, and an 'error' nobody hears ends the
    // process. An attempt whose job was aborted before it began destroyed its request before
    // this listener was there: the fleet's three hosts died so when its primary restarted under
    // their webhook attempts (job pools stopping abort their jobs). `finish` keeps the first.
    request.on('error', (error) => finish(outcome(null, describe(error))));
    if (post.signal?.aborted) {
      onAbort();
      return;
    }
    post.signal?.addEventListener('abort', onAbort, { once: true });
    request.end(body);
  });
}
