/* eslint-disable @typescript-eslint/no-require-imports */
// These packages ship CommonJS builds, but declare their typings for ESM only.
import type * as DriverModule from 'mikro-orm-pglite' with { 'resolution-mode': 'import' };
import type * as TrigramModule from '@electric-sql/pglite/contrib/pg_trgm' with { 'resolution-mode': 'import' };

import type * as PGliteModule from '@electric-sql/pglite' with { 'resolution-mode': 'import' };
import { routeSingleStatementsThroughQuery } from './pglite-statements';

interface EmbeddedModules {
  PGlite: typeof PGliteModule.PGlite;
  types: typeof PGliteModule.types;
  PGliteDriver: typeof DriverModule.PGliteDriver;
  pg_trgm: typeof TrigramModule.pg_trgm;
}

let loaded: EmbeddedModules | null = null;

/**
 * The embedded database's modules, loaded on first use: a service on a PostgreSQL server never
 * loads them (some 35 MB of memory).
 */
export function embeddedModules(): EmbeddedModules {
  if (!loaded) {
    const { PGlite, types } = require('@electric-sql/pglite') as typeof PGliteModule;
    const { PGliteDriver, PGliteKnexDialect } = require('mikro-orm-pglite') as typeof DriverModule;
    const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as typeof TrigramModule;
    routeSingleStatementsThroughQuery(PGliteKnexDialect);
    loaded = { PGlite, types, PGliteDriver, pg_trgm };
  }
  return loaded;
}
