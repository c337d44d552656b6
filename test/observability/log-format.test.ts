import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { buildService, type ServiceBuild } from '../faults/support/build';
import { testDatabaseKind } from '../helpers/test-database';

// No database involved: once, in the embedded project.
const suite = testDatabaseKind === 'embedded' ? describe : describe.skip;

suite('log format', () => {
  let build: ServiceBuild;
  beforeAll(() => {
    build = buildService();
  });
  afterAll(() => build.remove());

  /** What one log call prints, with the environment given (stdout is a pipe here, not a TTY). */
  const logged = (env: Record<string, string>) => {
    const logger = join(build.main, '../platform/observability/logger.js');
    const config = join(build.main, '../app-config.js');
    return execFileSync(
      process.execPath,
      [
        '-e',
        `const { createLogger } = require(${JSON.stringify(logger)});` +
          `const { loadConfig } = require(${JSON.stringify(config)});` +
          `const log = createLogger(loadConfig());` +
          `log.info({ route: '/x' }, 'hello');` +
          // The pretty transport writes from a worker thread: let it flush.
          `const stream = log[require('pino').symbols.streamSym].constructor.name;` +
          `setTimeout(() => console.log('stream ' + stream), 300);`,
      ],
      { env: { PATH: process.env['PATH'], ...env }, encoding: 'utf8' },
    );
  };

  it('writes JSON lines straight to stdout when it is not a terminal: no pino-pretty worker', () => {
    const output = logged({ NODE_ENV: 'development' });
    const [line, stream] = output.trim().split('\n');
    expect(JSON.parse(line as string)).toMatchObject({ msg: 'hello', route: '/x', level: 30 });
    expect(stream).toBe('stream SonicBoom');
  });

  it('writes readable lines when asked to', () => {
    const output = logged({ NODE_ENV: 'development', LOG_FORMAT: 'pretty' });
    expect(output).toMatch(/INFO.*hello/);
    expect(output).toContain('stream ThreadStream');
    expect(output).not.toMatch(/^\{/m);
  });
});
