import { readdirSync } from 'node:fs';
import { findMigrations, MIGRATIONS_PATH, migrationsList } from '../../src/db/migrations';

describe('the migrations the app runs', () => {
  it('are every migration file of their folder, oldest first, none listed by hand', () => {
    const files = readdirSync(MIGRATIONS_PATH)
      .filter((file) => /^Migration\d{14}\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    expect(files.length).toBeGreaterThan(0);
    expect(migrationsList.map((migration) => migration.name)).toEqual(files);
    expect(migrationsList.every(({ name, class: type }) => type.name === name)).toBe(true);
  });

  it('are found again the same way from the same folder', () => {
    expect(findMigrations(MIGRATIONS_PATH).map((migration) => migration.name)).toEqual(
      migrationsList.map((migration) => migration.name),
    );
  });
});
