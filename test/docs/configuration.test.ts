import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_VARIABLES } from '../../src/config';
import { readDoc, ROOT } from './markdown';

/*
 * The configuration reference is complete: every environment variable the service reads is
 * named (as `NAME`) in a guide of docs/, most in the configuration table of docs/operations.md,
 * the subscription bounds in the API guide, mail's in docs/mail.md.
 */
describe('the configuration reference', () => {
  const guides = readdirSync(join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => readDoc(`docs/${file}`))
    .join('\n');

  it('names every variable the service reads', () => {
    expect(CONFIG_VARIABLES.filter((name) => !guides.includes(`\`${name}\``))).toEqual([]);
  });

  it("lists the rooms' booking horizon in the configuration table", () => {
    expect(readDoc('docs/operations.md')).toMatch(
      /^\| `RESOURCE_BOOKING_HORIZON_DAYS` +\| `365` /m,
    );
  });
});
