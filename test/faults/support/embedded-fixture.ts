import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildService, type ServiceBuild } from './build';
import { type ServiceProcess, serviceEnv, startService } from './service';

/** What a fault test on the embedded database works with: a fresh build and data directory. */
export interface EmbeddedFixture {
  /** The built service's entry point (`main.js`). */
  readonly main: string;
  /** A built program beside `main.js`, e.g. `db/seed/seed.js`. */
  script(path: string): string;
  /** The test file's temporary data directory. */
  readonly dataDir: string;
  /** Starts the service on the data directory, with `env` added; killed after the file. */
  start(
    env?: Record<string, string>,
    options?: Parameters<typeof startService>[2],
  ): Promise<ServiceProcess>;
  /** Keeps a process started otherwise, to be killed after the file. */
  track(service: ServiceProcess): ServiceProcess;
}

/**
 * Sets up a describe block of fault tests: compiles the service once and makes a temporary data
 * directory before its tests; after them kills every service still running and removes both.
 */
export function useEmbeddedFixture(name: string): EmbeddedFixture {
  let build: ServiceBuild | undefined;
  let dataDir: string | undefined;
  const services: ServiceProcess[] = [];

  beforeAll(() => {
    build = buildService();
    dataDir = mkdtempSync(join(tmpdir(), `meetings-faults-${name}-`));
  });

  afterAll(async () => {
    await Promise.all(services.map((service) => service.kill()));
    build?.remove();
    if (dataDir) {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);

  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) {
      throw new Error('the fixture is set up in beforeAll: use it inside tests');
    }
    return value;
  };
  const fixture: EmbeddedFixture = {
    get main() {
      return ready(build).main;
    },
    script: (path) => join(dirname(ready(build).main), path),
    get dataDir() {
      return ready(dataDir);
    },
    async start(env = {}, options = {}) {
      const service = await startService(
        fixture.main,
        serviceEnv({ DATA_DIR: fixture.dataDir, ...env }),
        options,
      );
      return fixture.track(service);
    },
    track(service) {
      services.push(service);
      return service;
    },
  };
  return fixture;
}
