import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The options V8's gc extension takes (its `flavor: 'last-resort'` frees all it can). */
type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * Gives back to the system the heap that starting took and no longer needs. Starting allocates
 * faster than anything later, so V8 grows the young generation to its bound (2 ×
 * `--max-semi-space-size`) and keeps the pages it frees pooled, resident, for reuse; a full
 * collection of V8's last-resort kind (what it runs on a low-memory notification) shrinks the young
 * generation to its minimum and releases the pool. Measured in docs/architecture.md ("Start-up's
 * garbage given back before listening"). The gc function comes from a context of its own, so it is
 * never a global that other code could call.
 */
export function releaseStartUpMemory(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as GcFunction;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
