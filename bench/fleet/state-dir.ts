import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandName, isAlive } from './commands';
import { stopLeftoverBalancer } from './balancer';
import { NAME_PREFIX, removeNetwork } from './network';
import { stopDataDir } from './postgres-server';

// The fleet's working directory (data directories, HAProxy's configuration and socket), at a
// fixed place so that the leftovers of an interrupted run are found and removed by the next one,
// with the pid of the process whose fleet it is: one fleet at a time on a machine.

export const STATE_DIR = join(tmpdir(), NAME_PREFIX);

export const statePaths = {
  postgres: join(STATE_DIR, 'pg'),
  balancer: join(STATE_DIR, 'haproxy'),
  owner: join(STATE_DIR, 'owner'),
};

function owner(): number | null {
  try {
    const pid = Number(readFileSync(statePaths.owner, 'utf8').trim());
    return pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Stops and removes everything of a fleet found on the machine (processes by their pid files,
 * namespaces and links by name, the directory): synchronous, idempotent.
 */
export function removeFleetLeftovers(): void {
  stopLeftoverBalancer(statePaths.balancer);
  stopDataDir(join(statePaths.postgres, 'replica'));
  stopDataDir(join(statePaths.postgres, 'primary'));
  removeNetwork();
  rmSync(STATE_DIR, { recursive: true, force: true });
}

/**
 * Takes the machine's fleet for this process: refuses while another live process holds it,
 * removes what an interrupted run left, and makes the directory afresh.
 */
export function claimFleet(): void {
  const holder = owner();
  if (
    holder !== null &&
    holder !== process.pid &&
    isAlive(holder) &&
    commandName(holder) === commandName(process.pid)
  ) {
    throw new Error(
      `process ${holder} runs a fleet (${statePaths.owner}): one at a time on a machine`,
    );
  }
  removeFleetLeftovers();
  mkdirSync(STATE_DIR, { recursive: true, mode: 0o755 });
  writeFileSync(statePaths.owner, String(process.pid));
}
