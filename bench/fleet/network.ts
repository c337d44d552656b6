import { program, run, runSync, signal, tryRunSync, waitGoneSync } from './commands';

// The fleet's network: one bridge in the root namespace (the gateway, where PostgreSQL and the
// harness listen) and one network namespace per host, joined to it by a veth pair. Every name
// starts with `mtgfleet` and the addresses are a /24 of their own, so nothing else on the machine
// is touched, and leftovers of an interrupted run are found by name.

export const NAME_PREFIX = 'mtgfleet';
export const BRIDGE = `${NAME_PREFIX}0`;
const SUBNET = '10.231.7';
/** The root namespace's address on the bridge. */
export const GATEWAY_ADDRESS = `${SUBNET}.1`;
export const SUBNET_CIDR = `${SUBNET}.0/24`;
const PREFIX_LENGTH = 24;

/** The names and address of host `i` (0-based): h1, mtgfleet-h1, 10.231.7.11, ... */
export function hostNetwork(i: number): {
  name: string;
  namespace: string;
  /** The veth end on the bridge (root namespace); the other end is `eth0` in the namespace. */
  link: string;
  address: string;
} {
  const n = i + 1;
  return {
    name: `h${n}`,
    namespace: `${NAME_PREFIX}-h${n}`,
    link: `${NAME_PREFIX}-v${n}`,
    address: `${SUBNET}.${10 + n}`,
  };
}

const ip = (...args: string[]): string[] => [program('ip'), ...args];

/** Every network namespace whose name is one of the fleet's. */
function fleetNamespaces(): string[] {
  return (tryRunSync(ip('netns', 'list')) ?? '')
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name.startsWith(`${NAME_PREFIX}-`));
}

/** Every link of the root namespace whose name is one of the fleet's. */
function fleetLinks(): string[] {
  return (tryRunSync(ip('-o', 'link', 'show')) ?? '')
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1] ?? '')
    .filter((name) => name.startsWith(NAME_PREFIX));
}

/** The processes running in a namespace. */
export function namespacePids(namespace: string): number[] {
  return (tryRunSync(ip('netns', 'pids', namespace)) ?? '')
    .split('\n')
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** SIGKILLs every process of a namespace and waits (a moment) until they are gone. */
export function killNamespace(namespace: string): void {
  const pids = namespacePids(namespace);
  for (const pid of pids) {
    signal(pid, 'SIGKILL');
  }
  waitGoneSync(pids, 5_000);
}

/**
 * Removes the fleet's namespaces (after killing what runs in them), veth links and bridge,
 * whether this run made them or an earlier one left them; synchronous and idempotent.
 */
export function removeNetwork(): void {
  for (const namespace of fleetNamespaces()) {
    killNamespace(namespace);
    // Deleting the namespace deletes its veth end, and with it the end on the bridge.
    tryRunSync(ip('netns', 'delete', namespace));
  }
  for (const link of fleetLinks()) {
    tryRunSync(ip('link', 'delete', link));
  }
}

/** Creates the bridge (with the gateway address) and `hosts` namespaces joined to it. */
export async function createNetwork(hosts: number): Promise<void> {
  await run(ip('link', 'add', BRIDGE, 'type', 'bridge'));
  await run(ip('addr', 'add', `${GATEWAY_ADDRESS}/${PREFIX_LENGTH}`, 'dev', BRIDGE));
  await run(ip('link', 'set', BRIDGE, 'up'));
  for (let i = 0; i < hosts; i += 1) {
    const host = hostNetwork(i);
    const inside = (...args: string[]) => run(ip('-n', host.namespace, ...args));
    await run(ip('netns', 'add', host.namespace));
    await run(
      ip('link', 'add', host.link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.namespace),
    );
    await run(ip('link', 'set', host.link, 'master', BRIDGE, 'up'));
    await inside('link', 'set', 'lo', 'up');
    await inside('addr', 'add', `${host.address}/${PREFIX_LENGTH}`, 'dev', 'eth0');
    await inside('link', 'set', 'eth0', 'up');
    // Everything the host talks to is on the bridge; a default route makes other addresses of
    // the root namespace reachable too.
    await inside('route', 'add', 'default', 'via', GATEWAY_ADDRESS);
  }
}

/**
 * Takes host `i`'s cable out (its veth end on the bridge down) or puts it back. Packets are
 * dropped, nothing is reset: peers see timeouts, as with a host cut off a real network.
 */
export function setHostLink(i: number, up: boolean): void {
  runSync(ip('link', 'set', hostNetwork(i).link, up ? 'up' : 'down'));
}
