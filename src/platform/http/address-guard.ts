import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Which addresses an outbound request may reach. Private, loopback, link-local and other
 * non-public ranges are closed unless a deployment opens them (a receiver on the same network),
 * so a URL a user registers cannot make the service call into its own network (SSRF).
 */
// One list per family: a BlockList checks an IPv4 address against its IPv6 rules too (as
// ::ffff:a.b.c.d), which would make the IPv4-mapped range below cover every IPv4 address.
const NON_PUBLIC_V4 = new BlockList();
const NON_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  NON_PUBLIC_V4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::ffff:0:0', 96], // IPv4-mapped (and so IPv4 reached through IPv6): refused as a whole
  ['64:ff9b::', 96], // NAT64: may map to a private IPv4 address
  ['100::', 64], // discard
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: may embed a private IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC_V6.addSubnet(network, prefix, 'ipv6');
}

/** An address (IPv4 or IPv6 text) outside the public internet. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) {
    return true;
  }
  return family === 4 ? NON_PUBLIC_V4.check(address, 'ipv4') : NON_PUBLIC_V6.check(address, 'ipv6');
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
        (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, found);
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}
