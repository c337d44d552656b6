import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDatabaseKind } from '../helpers/test-database';
import { useEmbeddedFixture } from './support/embedded-fixture';
import { register } from './support/load';

/**
 * A write on the embedded database is acknowledged only after its WAL reached the disk: the
 * service runs under strace, and between sending each of 20 sequential registrations and reading
 * its 201 some process of the service (the PostgreSQL server) called fsync or fdatasync on a WAL
 * file. Runs once, in the embedded jest project; needs strace (.ci/run installs it), and without
 * it fails in CI and is skipped elsewhere.
 */

const WRITES = 20;

function straceAvailable(): boolean {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const runs =
  testDatabaseKind === 'embedded' &&
  process.platform === 'linux' &&
  (straceAvailable() || process.env['CI'] === 'true');
const suite = runs ? describe : describe.skip;

/** A sync call from the trace: when (ms since the epoch) and on which file. */
interface SyncCall {
  at: number;
  file: string;
}

/**
 * The completed sync calls of `strace -f -ttt -yy`: `PID SECONDS.MICROS fdatasync(FD</path>) = 0`,
 * or, when another traced process made a call meanwhile, the same call in two lines,
 * `PID SECONDS.MICROS fdatasync(FD</path> <unfinished ...>` and later
 * `PID SECONDS.MICROS <... fdatasync resumed>) = 0`. Each call counts when it returned.
 */
function syncCalls(trace: string): SyncCall[] {
  const calls: SyncCall[] = [];
  const unfinished = new Map<string, string>();
  for (const line of trace.split('\n')) {
    const whole = /^\d+\s+(\d+\.\d+)\s+f(?:data)?sync\(\d+<([^>]*)>\)\s+=\s+0/.exec(line);
    if (whole) {
      calls.push({ at: Number(whole[1]) * 1000, file: whole[2] as string });
      continue;
    }
    const started = /^(\d+)\s+\d+\.\d+\s+f(?:data)?sync\(\d+<([^>]*)>\s+<unfinished/.exec(line);
    if (started) {
      unfinished.set(started[1] as string, started[2] as string);
      continue;
    }
    const resumed = /^(\d+)\s+(\d+\.\d+)\s+<\.\.\. f(?:data)?sync resumed>.*=\s+0/.exec(line);
    const file = resumed ? unfinished.get(resumed[1] as string) : undefined;
    if (resumed && file !== undefined) {
      unfinished.delete(resumed[1] as string);
      calls.push({ at: Number(resumed[2]) * 1000, file });
    }
  }
  return calls;
}

suite('durability of the embedded database', () => {
  const fixture = useEmbeddedFixture('fsync');

  it('syncs the WAL to disk between each commit and its acknowledgement', async () => {
    const traceFile = join(fixture.dataDir, 'strace.out');
    const service = await fixture.start(
      {},
      {
        startTimeoutMs: 90_000,
        prefix: ['strace', '-f', '-qq', '-ttt', '-yy', '-e', 'trace=fsync,fdatasync'].concat([
          '-o',
          traceFile,
        ]),
      },
    );
    const windows: Array<{ sent: number; acknowledged: number }> = [];
    try {
      for (let i = 0; i < WRITES; i += 1) {
        const sent = Date.now();
        const reply = await register(service.url, `fsync${i}`);
        const acknowledged = Date.now();
        expect(reply.status).toBe(201);
        windows.push({ sent, acknowledged });
      }
    } finally {
      // The service is strace's child; the lock names it. Stopping it ends the server and strace.
      const { pid } = JSON.parse(readFileSync(join(fixture.dataDir, 'embedded.lock'), 'utf8')) as {
        pid: number;
      };
      process.kill(pid, 'SIGTERM');
      await service.exited;
    }

    const walSyncs = syncCalls(readFileSync(traceFile, 'utf8')).filter((call) =>
      call.file.includes('/pg_wal/'),
    );
    const unsynced = windows.filter(
      ({ sent, acknowledged }) => !walSyncs.some((s) => s.at >= sent && s.at <= acknowledged),
    );
    console.log(
      `embedded-durability: ${WRITES} acknowledged registrations, ${walSyncs.length} WAL syncs ` +
        `traced, ${WRITES - unsynced.length} acknowledgements preceded by a WAL sync`,
    );
    expect(unsynced).toEqual([]);
  }, 180_000);
});
