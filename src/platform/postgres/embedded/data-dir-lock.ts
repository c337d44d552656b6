import { closeSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';

/** Who serves an embedded data directory: the process that started its PostgreSQL server. */
export interface LockHolder {
  pid: number;
  /** The holder's command line, to name it in messages. */
  command: string;
  /** The TCP port (on 127.0.0.1) its server listens on. */
  port: number;
  /** When the lock was taken, ms since the epoch. */
  startedAt: number;
}

/** A data directory is served by another live process. */
export class DataDirectoryBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the embedded database in ${dataDir} is in use by process ${holder.pid} ` +
        `(${holder.command}, since ${new Date(holder.startedAt).toISOString()}); ` +
        'stop that process first, or give this one another DATA_DIR (or a DATABASE_URL)',
    );
  }
}

/** When a process started, ms since the epoch, from /proc (Linux); null where unknown. */
function processStartedAt(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (start time in clock ticks since boot) counts from after the parenthesised name.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const bootLine = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    // Linux reports ticks at USER_HZ, 100 on every supported architecture.
    return bootLine && Number.isFinite(ticks) ? Number(bootLine[1]) * 1000 + ticks * 10 : null;
  } catch {
    return null;
  }
}

/** True when the holder still runs: its pid is alive and was not reused by a later process. */
function alive(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') {
      return false;
    }
  }
  const started = processStartedAt(holder.pid);
  // A process that took the lock started before it did (a second of slack for clock rounding).
  return started === null || started <= holder.startedAt + 1000;
}

function readHolder(path: string): LockHolder | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
  } catch {
    // Gone, or half-written by a process that died while writing it.
    return null;
  }
}

/**
 * An exclusive lock on a data directory, as a file created with O_EXCL and naming its holder.
 * A lock whose holder died (kill -9, power loss) is taken over. Hand-written: lock libraries
 * detect staleness by age, and we want to name the live holder in the refusal.
 */
export class DataDirectoryLock {
  private constructor(
    private readonly path: string,
    private mine: LockHolder,
  ) {}

  /** What the lock says of us. */
  get holder(): LockHolder {
    return this.mine;
  }

  /** Records the port our server moved to (another program took the first one meanwhile). */
  movePort(port: number): void {
    this.mine = { ...this.mine, port };
    writeFileSync(this.path, JSON.stringify(this.mine), { mode: 0o600 });
  }

  /** Takes the lock, or answers who holds it now. */
  static acquire(path: string, port: number): { lock: DataDirectoryLock } | { heldBy: LockHolder } {
    const mine: LockHolder = {
      pid: process.pid,
      command: process.argv.slice(1).join(' ') || process.argv0,
      port,
      startedAt: Date.now(),
    };
    for (let attempt = 0; attempt < 3; attempt += 1) {
      let fd: number;
      try {
        fd = openSync(path, 'wx', 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw error;
        }
        const holder = readHolder(path);
        if (holder && alive(holder)) {
          return { heldBy: holder };
        }
        unlinkSync(path);
        continue;
      }
      try {
        writeSync(fd, JSON.stringify(mine));
      } finally {
        closeSync(fd);
      }
      return { lock: new DataDirectoryLock(path, mine) };
    }
    throw new Error(`could not lock ${path}: other processes keep taking it`);
  }

  /** The live holder of the lock at `path`, if any. */
  static holder(path: string): LockHolder | null {
    const holder = readHolder(path);
    return holder && alive(holder) ? holder : null;
  }

  /** Gives the lock up (only if it is still ours). */
  release(): void {
    if (readHolder(this.path)?.pid === this.mine.pid) {
      unlinkSync(this.path);
    }
  }
}
