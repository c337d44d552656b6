import { Writable } from 'node:stream';
import { createLogger } from '../../src/platform/observability/logger';
import { routeConsoleToLog } from '../../src/platform/observability/console-to-log';

/** A logger writing JSON lines into `lines`. */
function capture(lines: string[]) {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return createLogger({ logLevel: 'debug', logFormat: 'json', env: 'production' }, destination);
}

describe('the console routed to the log', () => {
  it("writes a library's console.trace of an error, its other console lines and Node's warnings as JSON", async () => {
    const lines: string[] = [];
    const restore = routeConsoleToLog(capture(lines));
    try {
      // As graphile-worker reports a worker that exited with an error.
      console.trace(new Error('Connection terminated unexpectedly'));
      console.log('plain %s line', 'formatted');
      process.emitWarning(
        'Calling client.query() when the client is already executing a query',
        'DeprecationWarning',
      );
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      restore();
    }
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toEqual([
      expect.objectContaining({
        level: 50,
        component: 'console',
        via: 'console.trace',
        msg: 'Connection terminated unexpectedly',
        err: expect.objectContaining({ type: 'Error' }),
      }),
      expect.objectContaining({ level: 30, via: 'console.log', msg: 'plain formatted line' }),
      expect.objectContaining({
        level: 40,
        via: 'process warning',
        warning: 'DeprecationWarning',
        msg: 'Calling client.query() when the client is already executing a query',
        err: expect.objectContaining({ stack: expect.any(String) }),
      }),
    ]);
    // Stacks stay in their own field, never in the message.
    expect(entries.every((entry) => !String(entry['msg']).includes('\n    at '))).toBe(true);
  });
});
