import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildService, type ServiceBuild } from '../faults/support/build';
import { type ServiceProcess, serviceEnv, startService } from '../faults/support/service';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../helpers/test-database';

/** Span names and kinds received by a local OTLP/HTTP (JSON) collector. */
interface ReceivedSpan {
  name: string;
  kind: number;
}

function collector(): Promise<{ server: Server; url: string; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: ReceivedSpan[] }> }>;
        };
        for (const resource of body.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) {
            spans.push(...(scope.spans ?? []).map(({ name, kind }) => ({ name, kind })));
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        spans,
      }),
    ),
  );
}

// Service processes on PostgreSQL: once, in the postgres project.
const suite = testDatabaseKind === 'postgres' ? describe : describe.skip;

suite('tracing', () => {
  let build: ServiceBuild;

  beforeAll(() => {
    build = buildService();
  });
  afterAll(() => build.remove());

  it('loads nothing of OpenTelemetry unless an OTLP endpoint is configured', () => {
    const preload = join(build.main, '../tracing-preload.js');
    const loaded = (env: NodeJS.ProcessEnv) =>
      execFileSync(
        process.execPath,
        [
          '-e',
          `require(${JSON.stringify(preload)});` +
            `console.log(Object.keys(require.cache).filter((p) => p.includes('@opentelemetry')).length)`,
        ],
        { env: { PATH: process.env['PATH'], ...env }, encoding: 'utf8' },
      ).trim();
    expect(loaded({})).toBe('0');
    expect(Number(loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }))).toBeGreaterThan(
      10,
    );
  });

  describe('with an OTLP endpoint', () => {
    let database: TestDatabase;
    let service: ServiceProcess | undefined;
    let otlp: Awaited<ReturnType<typeof collector>>;

    beforeAll(async () => {
      otlp = await collector();
      database = await createTestDatabase();
      if (database.config.kind !== 'postgres') {
        throw new Error('expected a PostgreSQL test database');
      }
      service = await startService(
        build.main,
        serviceEnv({
          DATABASE_URL: database.config.url,
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_BSP_SCHEDULE_DELAY: '100',
        }),
      );
    }, 60_000);
    afterAll(async () => {
      await service?.kill();
      await database.drop();
      await new Promise((resolve) => otlp.server.close(resolve));
    });

    it('exports spans of the HTTP request, its GraphQL operation and its SQL', async () => {
      const response = await fetch(`${service?.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'query Traced { searchUsers(q: "nobody") { count } }',
        }),
      });
      expect(response.status).toBe(200);
      const served = () => otlp.spans.some((span) => span.name.startsWith('POST'));
      for (let waited = 0; waited < 10_000 && !served(); waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const names = otlp.spans.map((span) => span.name);
      expect(names).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^POST/),
          expect.stringMatching(/^query Traced|graphql/i),
          expect.stringMatching(/^(pg\.query|select)/i),
        ]),
      );
      expect(names.filter((name) => /health/.test(name))).toEqual([]);
    }, 30_000);
  });
});
