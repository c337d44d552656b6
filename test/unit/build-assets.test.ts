import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '../..');

/** Runs scripts/build-assets.cjs into `outDir` and answers what it did to each part. */
function buildAssets(outDir: string): { graphiql: string; swaggerUi: string } {
  const output = execFileSync(process.execPath, [join(root, 'scripts/build-assets.cjs'), outDir], {
    encoding: 'utf8',
  });
  const done = /GraphiQL (\w+), Swagger UI (\w+)/.exec(output);
  return { graphiql: done?.[1] ?? output, swaggerUi: done?.[2] ?? output };
}

// The jest run's global set-up has made dist/assets and the cached bundle of the current inputs.
describe('scripts/build-assets.cjs', () => {
  let outDir: string;

  beforeAll(() => {
    outDir = mkdtempSync(join(tmpdir(), 'meetings-assets-'));
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('fills a new output from the bundle already made for these inputs, without bundling', () => {
    expect(buildAssets(outDir)).toEqual({ graphiql: 'linked', swaggerUi: 'copied' });
    expect(readdirSync(join(outDir, 'graphiql'))).toEqual(
      expect.arrayContaining([
        'graphiql.js',
        'graphiql.css',
        'editor.worker.js',
        'json.worker.js',
        'graphql.worker.js',
        'stamp',
      ]),
    );
    expect(readdirSync(join(outDir, 'swagger-ui')).sort()).toEqual(
      [
        'LICENSE',
        'NOTICE',
        'favicon-16x16.png',
        'favicon-32x32.png',
        'stamp',
        'swagger-ui-bundle.js',
        'swagger-ui-bundle.js.LICENSE.txt',
        'swagger-ui.css',
      ].sort(),
    );
    // The same files as dist/assets (hard links where they can be), for the same stamp.
    const stamp = readFileSync(join(outDir, 'graphiql/stamp'), 'utf8');
    expect(readFileSync(join(root, 'dist/assets/graphiql/stamp'), 'utf8')).toBe(stamp);
    expect(statSync(join(outDir, 'graphiql/graphiql.js')).size).toBe(
      statSync(join(root, 'dist/assets/graphiql/graphiql.js')).size,
    );
  });

  it('leaves a current output alone, and makes one whose stamp differs again', () => {
    expect(buildAssets(outDir)).toEqual({ graphiql: 'current', swaggerUi: 'current' });
    writeFileSync(join(outDir, 'graphiql/stamp'), 'made from something else');
    writeFileSync(join(outDir, 'swagger-ui/stamp'), 'made from something else');
    expect(buildAssets(outDir)).toEqual({ graphiql: 'linked', swaggerUi: 'copied' });
    expect(readFileSync(join(outDir, 'graphiql/stamp'), 'utf8')).not.toBe(
      'made from something else',
    );
  });
});
