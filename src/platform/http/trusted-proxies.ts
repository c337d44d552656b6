import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/**
 * Who may say where a request came from: the balancers in front of the service (TRUST_PROXY,
 * addresses and CIDR ranges, or proxy-addr's names `loopback`, `linklocal` and `uniquelocal`).
 * A request's client address is the nearest address of `X-Forwarded-For` that is not one of
 * them, walking from the connection's own peer; a peer that is not trusted is the client itself,
 * whatever it claims. proxy-addr is what Express's `trust proxy` uses: HTTP requests (req.ip)
 * and WebSocket upgrades get the same answer.
 */
export interface TrustedProxies {
  /** The client's address of a request (an HTTP request or a WebSocket upgrade). */
  clientAddress(request: IncomingMessage): string;
  /** Whether `address` is a trusted proxy (Express's `trust proxy` function). */
  trusts(address: string, hop: number): boolean;
}

/** The trusted proxies of a valid list (TRUST_PROXY, http.settings.ts). */
export function trustedProxies(list: readonly string[]): TrustedProxies {
  const trusts = proxyAddr.compile([...list]);
  return {
    trusts,
    clientAddress: (request) => proxyAddr(request, trusts),
  };
}
