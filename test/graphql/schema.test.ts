import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { printSchema } from 'graphql';
import { createSchema } from '../../src/context';

describe('the checked-in SDL', () => {
  it('is exactly what the code builds (run `npm run schema:print` after changing the schema)', async () => {
    const committed = readFileSync(resolve(__dirname, '../../schema/schema.graphql'), 'utf8');
    expect(committed).toBe(`${printSchema(await createSchema())}\n`);
  });
});
