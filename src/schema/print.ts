import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { printSchema } from 'graphql';
import { createSchema } from './build-schema';

export const SCHEMA_FILE = resolve(__dirname, '../../../schema/schema.graphql');

/** Writes the SDL that the code builds to schema/schema.graphql. */
async function main(): Promise<void> {
  const sdl = printSchema(await createSchema());
  writeFileSync(SCHEMA_FILE, `${sdl}\n`);
  console.log(`wrote ${SCHEMA_FILE}`);
}

void main();
