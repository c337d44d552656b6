import { Client } from 'pg';
import { recordPatiently } from '../../src/platform/jobs/record-patiently';
import { freePort } from '../../src/platform/shared/free-port';

/** A real connection attempt to a port nobody listens on: the driver's own refusal. */
async function refusedConnection(port: number): Promise<never> {
  const client = new Client({ host: '127.0.0.1', port, connectionTimeoutMillis: 1_000 });
  await client.connect();
  await client.end();
  throw new Error(`something listens on ${port}`);
}

describe('recordPatiently', () => {
  it('tries a record again while the database cannot be reached, then answers it', async () => {
    const port = await freePort();
    let attempts = 0;
    const recorded = await recordPatiently(async () => {
      attempts += 1;
      if (attempts < 3) {
        await refusedConnection(port);
      }
      return 'recorded';
    }, new AbortController().signal);
    expect(recorded).toBe('recorded');
    expect(attempts).toBe(3);
  });

  it('gives up past its patience, with the database error', async () => {
    const port = await freePort();
    let attempts = 0;
    const record = () => {
      attempts += 1;
      return refusedConnection(port);
    };
    await expect(recordPatiently(record, new AbortController().signal, 250)).rejects.toThrow(
      /ECONNREFUSED/,
    );
    expect(attempts).toBeGreaterThan(1);
  });

  it('passes any other error at once, and stops trying once the run is stopped', async () => {
    let attempts = 0;
    const refused = recordPatiently(async () => {
      attempts += 1;
      throw new Error('a constraint');
    }, new AbortController().signal);
    await expect(refused).rejects.toThrow('a constraint');
    expect(attempts).toBe(1);

    const port = await freePort();
    const stop = new AbortController();
    let tries = 0;
    const stopped = recordPatiently(() => {
      tries += 1;
      if (tries === 2) {
        stop.abort();
      }
      return refusedConnection(port);
    }, stop.signal);
    await expect(stopped).rejects.toThrow(/ECONNREFUSED/);
    expect(tries).toBe(2);
  });
});
