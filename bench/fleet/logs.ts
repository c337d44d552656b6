import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

// The fleet's log files: every process writes its stdout and stderr straight into a file of the
// log directory (a descriptor it inherits, so nothing passes through the harness's event loop and
// a server run as another user needs no access to the directory).

/** The path of a log of the directory (`primary` → <logDir>/primary.log). */
export function logPath(logDir: string, name: string): string {
  return join(logDir, `${name}.log`);
}

/** Opens a log for appending (creating the directory); the caller closes it once handed over. */
export function openLog(logDir: string, name: string): number {
  mkdirSync(logDir, { recursive: true });
  return openSync(logPath(logDir, name), 'a');
}

/** The last bytes of a log (a failure message's detail). */
export function logTail(logDir: string, name: string, bytes = 3000): string {
  let fd: number | null = null;
  try {
    fd = openSync(logPath(logDir, name), 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(bytes, size);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== null) {
      closeSync(fd);
    }
  }
}

/**
 * Notes what the fleet did, with the time, in <logDir>/fleet.log (start phases, faults): to line
 * up with the services' and servers' logs afterwards.
 */
export function noteEvent(logDir: string, text: string): void {
  try {
    mkdirSync(logDir, { recursive: true });
    appendFileSync(logPath(logDir, 'fleet'), `${new Date().toISOString()} ${text}\n`);
  } catch {
    // no log directory any more: nothing to note in
  }
}
