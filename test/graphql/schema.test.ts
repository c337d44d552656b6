import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { schemaSdl } from '../../src/platform/graphql/sdl';
import { createSchema } from '../../src/context';

describe('the checked-in SDL', () => {
  it('is exactly what the code builds (run `npm run schema:print` after changing the schema)', async () => {
    const committed = readFileSync(resolve(__dirname, '../../schema/schema.graphql'), 'utf8');
    expect(committed).toBe(schemaSdl(await createSchema()));
  });
});
