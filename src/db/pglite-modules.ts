/* eslint-disable @typescript-eslint/no-require-imports */
// These packages ship CommonJS builds, but declare their typings for ESM only.
import type * as DriverModule from 'mikro-orm-pglite' with { 'resolution-mode': 'import' };
import type * as TrigramModule from '@electric-sql/pglite/contrib/pg_trgm' with { 'resolution-mode': 'import' };

export const { PGliteDriver, PGliteKnexDialect } =
  require('mikro-orm-pglite') as typeof DriverModule;
export const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as typeof TrigramModule;
