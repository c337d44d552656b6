import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_VARIABLES, configurationDoc } from '../../src/app-config';
import { readDoc, ROOT } from './markdown';

/*
 * The configuration reference (docs/configuration.md) is written from the settings' own
 * declarations (`npm run docs:config`), so it is complete and current; the guides explain and
 * link to it rather than keep tables of their own that would drift from it.
 */
describe('the configuration reference', () => {
  const guides = readdirSync(join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md') && file !== 'configuration.md')
    .map((file) => ({ file, text: readDoc(`docs/${file}`) }));

  it('is what the settings declare now (npm run docs:config rewrites it)', () => {
    expect(readDoc('docs/configuration.md')).toBe(configurationDoc());
  });

  it('lists every variable the service reads, with its default', () => {
    const reference = readDoc('docs/configuration.md');
    expect(CONFIG_VARIABLES.filter((name) => !reference.includes(`| \`${name}\` `))).toEqual([]);
    expect(reference).toMatch(/^\| `RESOURCE_BOOKING_HORIZON_DAYS` +\| `365` /m);
  });

  it('is the only table of variables: a guide names them in its prose and links to it', () => {
    const rows = guides.flatMap(({ file, text }) =>
      CONFIG_VARIABLES.filter((name) => new RegExp(`^\\| \`${name}\``, 'm').test(text)).map(
        (name) => `${file}: ${name}`,
      ),
    );
    expect(rows).toEqual([]);
  });
});
