import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express, { type RequestHandler } from 'express';

/** An installed npm package whose browser files this service serves itself (no CDN). */
export interface InstalledPackage {
  name: string;
  version: string;
  /** The package's directory in node_modules. */
  directory: string;
}

/** Finds an installed package and its exact version, as npm resolved it. */
export function installedPackage(name: string): InstalledPackage {
  const manifest = require.resolve(`${name}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { name, version, directory: dirname(manifest) };
}

/**
 * Serves files of an installed package from `directory` below it (with `only`, just the paths it
 * matches: nothing else of node_modules is reachable). Cached for a day: the files change only
 * when the installed version does.
 */
export function packageFiles(
  pkg: InstalledPackage,
  options: { directory?: string; only?: ReadonlySet<string> } = {},
): RequestHandler {
  const files = express.static(join(pkg.directory, options.directory ?? '.'), {
    index: false,
    maxAge: '1d',
    immutable: true,
  });
  const { only } = options;
  if (!only) {
    return files;
  }
  return (req, res, next) => {
    if (only.has(req.path)) {
      files(req, res, next);
      return;
    }
    next();
  };
}
