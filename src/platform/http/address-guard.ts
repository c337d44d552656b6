import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses an outbound request may reach: the public internet's only. Loopback, private,
 * link-local, carrier-grade NAT, multicast, documentation, benchmarking, every other range of
 * IANA's special-purpose registries, and addresses that carry an IPv4 address inside an IPv6 one
 * (IPv4-mapped, NAT64, 6to4, Teredo) are closed unless a deployment opens them (a receiver on the
 * same network), so a URL a user registers cannot make the service call into its own network
 * (SSRF). The ranges are ipaddr.js's (kept with the registries); on top of them an IPv6 address
 * must be global unicast (2000::/3): that closes the deprecated IPv4-compatible (::a.b.c.d) and
 * site-local (fec0::/10) forms and the space IANA has not allocated.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** An address (IPv4 or IPv6 text) outside the public internet. */
export function isNonPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address) || isIP(address) === 0) {
    return true;
  }
  const parsed = ipaddr.parse(address);
  if (parsed.range() !== 'unicast') {
    return true;
  }
  return parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6);
}

/** A URL's host as an address, when it is one (`[::1]` → `::1`); null for a name. */
export function literalAddress(hostname: string): string | null {
  const bare =
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? null : bare;
}

/** Refused because the target resolved to an address outside the public internet. */
export class AddressNotAllowedError extends Error {
  readonly code = 'ADDRESS_NOT_ALLOWED';

  constructor() {
    super('the target resolves to a private, loopback or link-local address');
  }
}

/**
 * A `lookup` for `http.request` that resolves the name once and refuses it when any of its
 * addresses is not public: the socket then connects to exactly the address checked, so a name
 * cannot answer a public address to the check and a private one to the connection (DNS
 * rebinding). With `allowPrivate`, every address passes.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      if (!allowPrivate && found.some((entry) => isNonPublicAddress(entry.address))) {
        callback(new AddressNotAllowedError(), '', 0);
        return;
      }
      const first = found[0];
      if (!first) {
        callback(
          Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }),
          '',
          0,
        );
        return;
      }
      // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily).
      if (options.all) {
        callback(null, found);
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}
