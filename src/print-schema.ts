import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createSchema } from './context';
import { schemaSdl } from './platform/graphql/sdl';

export const SCHEMA_FILE = resolve(__dirname, '../../schema/schema.graphql');

/** Writes the SDL that the code builds to schema/schema.graphql. */
async function main(): Promise<void> {
  writeFileSync(SCHEMA_FILE, schemaSdl(await createSchema()));
  console.log(`wrote ${SCHEMA_FILE}`);
}

void main();
