import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type RequestHandler } from 'express';

/**
 * Where `npm run build` puts the browser assets (scripts/build-assets.cjs): assets/ beside the
 * compiled src/, so dist/assets (/app/dist/assets in the image). Run from the TypeScript sources
 * (jest), the repository's dist/assets, which the tests' global set-up brings up to date.
 */
const BUILT_ASSETS = __filename.endsWith('.ts')
  ? resolve(__dirname, '../../../dist/assets')
  : resolve(__dirname, '../../../assets');

/** One directory of built browser assets. */
export interface BuiltAssets {
  directory: string;
  /** The hash of what the files were made from: changes whenever they may have. */
  stamp: string;
}

/** The built assets called `name` (`graphiql`, `swagger-ui`), or null when they were not built. */
export function builtAssets(name: string): BuiltAssets | null {
  const directory = join(BUILT_ASSETS, name);
  try {
    return { directory, stamp: readFileSync(join(directory, 'stamp'), 'utf8').trim() };
  } catch {
    return null;
  }
}

/**
 * Serves the files of `assets` (no index, no listing); with `immutable`, cached for a year, for
 * URLs that name the stamp. Anything else goes on to the next handler.
 */
export function assetFiles(assets: BuiltAssets, options: { immutable: boolean }): RequestHandler {
  return express.static(assets.directory, {
    index: false,
    ...(options.immutable ? { maxAge: '365d', immutable: true } : {}),
  });
}

/** What a page says in place of a tool whose assets were not built. */
export const NOT_BUILT = (tool: string): string =>
  `${tool} is not built: run <code>npm run build</code> and start the service again.`;
