import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { modules } from '../../src/modules';

// The generator of the list (a build script, CommonJS like the others in scripts/).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require('../../scripts/modules-list.cjs') as {
  modulesList(): string;
  INDEX: string;
};

describe('the list of modules (src/modules/index.ts)', () => {
  it('is what `npm run modules:list` writes from the folders (run it after adding a module)', () => {
    expect(readFileSync(generator.INDEX, 'utf8')).toBe(generator.modulesList());
  });

  it('holds every module folder, each once, by the name its folder has', () => {
    const folders = readdirSync(dirname(generator.INDEX), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .filter((entry) =>
        readdirSync(join(dirname(generator.INDEX), entry.name)).includes('index.ts'),
      )
      .map((entry) => entry.name)
      .sort();
    expect(modules.map((module) => module.name).sort()).toEqual(folders);
  });
});
