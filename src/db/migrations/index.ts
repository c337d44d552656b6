import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122015109 } from './Migration20261122015109';
import { Migration20261122060000 } from './Migration20261122060000';
import { Migration20261122231750 } from './Migration20261122231750';
import { Migration20261126144400 } from './Migration20261126144400';
import { Migration20261126190000 } from './Migration20261126190000';
import { Migration20261126191000 } from './Migration20261126191000';
import { Migration20261126193000 } from './Migration20261126193000';
import { Migration20261126220000 } from './Migration20261126220000';
import { Migration20261126230000 } from './Migration20261126230000';
import { Migration20261126231000 } from './Migration20261126231000';
import { Migration20261127060000 } from './Migration20261127060000';

/** Where the migrations are (their sources in a TypeScript run, compiled in dist/). */
export const MIGRATIONS_PATH = __dirname;

/** Every migration, oldest first; listed here so compiled and TypeScript runs see the same set. */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122015109', class: Migration20261122015109 },
  { name: 'Migration20261122060000', class: Migration20261122060000 },
  { name: 'Migration20261122231750', class: Migration20261122231750 },
  { name: 'Migration20261126144400', class: Migration20261126144400 },
  { name: 'Migration20261126190000', class: Migration20261126190000 },
  { name: 'Migration20261126191000', class: Migration20261126191000 },
  { name: 'Migration20261126193000', class: Migration20261126193000 },
  { name: 'Migration20261126220000', class: Migration20261126220000 },
  { name: 'Migration20261126230000', class: Migration20261126230000 },
  { name: 'Migration20261126231000', class: Migration20261126231000 },
  { name: 'Migration20261127060000', class: Migration20261127060000 },
];
