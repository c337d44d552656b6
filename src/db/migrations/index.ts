import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122013736 } from './Migration20261122013736';

/** Every migration, oldest first; listed here so compiled and TypeScript runs see the same set. */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122013736', class: Migration20261122013736 },
];
