import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MigrationObject } from '@mikro-orm/core';

/** Where the migrations are (their sources in a TypeScript run, compiled in dist/). */
export const MIGRATIONS_PATH = __dirname;

/** A migration's file: `Migration<timestamp>` as TypeScript source or compiled JavaScript. */
const MIGRATION_FILE = /^(Migration\d{14})\.(ts|js)$/;

/**
 * Every migration in this folder, oldest first (their names sort by their timestamps): found
 * from the folder, so a migration `npm run migration:create` writes is run without being listed,
 * and compiled and TypeScript runs see the same set.
 */
export function findMigrations(path: string = MIGRATIONS_PATH): MigrationObject[] {
  const names = new Set(
    readdirSync(path).flatMap((file) => {
      const match = MIGRATION_FILE.exec(file);
      return match?.[1] ? [match[1]] : [];
    }),
  );
  return [...names].sort().map((name) => {
    // Loaded as the app loads: required here, once, at start-up (a module per file).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require(join(path, name)) as Record<string, MigrationObject['class']>;
    const found = loaded[name];
    if (!found) {
      throw new Error(`${name} in ${path} exports no class named ${name}`);
    }
    return { name, class: found };
  });
}

/** Every migration, oldest first. */
export const migrationsList: MigrationObject[] = findMigrations();
