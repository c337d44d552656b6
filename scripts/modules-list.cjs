// @ts-check
'use strict';
/**
 * Writes src/modules/index.ts, the list of the service's modules, from their folders: every folder
 * of src/modules/ with an index.ts is a module, whose face exports `<name>Module` (meeting-events:
 * meetingEventsModule). The list keeps the order it has (the schema prints its fields in it, and a
 * module's loaders build on those listed before it): a folder no longer there leaves it, a new one
 * joins at the end. `npm run modules:list` writes it; test/unit/modules-list.test.ts fails while
 * the committed file differs from what this would write.
 */
const fs = require('node:fs');
const path = require('node:path');

const MODULES = path.join(__dirname, '..', 'src', 'modules');
const INDEX = path.join(MODULES, 'index.ts');

/** The name a module's face exports its descriptor under. */
const exportOf = (folder) =>
  `${folder.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase())}Module`;

/** The module folders, in the order of the list as it is, then new ones by name. */
function moduleFolders() {
  const folders = fs
    .readdirSync(MODULES, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && fs.existsSync(path.join(MODULES, entry.name, 'index.ts')),
    )
    .map((entry) => entry.name);
  const listed = fs.existsSync(INDEX)
    ? [...fs.readFileSync(INDEX, 'utf8').matchAll(/^ {2}([a-zA-Z]+)Module,$/gm)].map((match) =>
        folders.find((folder) => exportOf(folder) === `${match[1]}Module`),
      )
    : [];
  const kept = listed.filter((folder) => folder !== undefined);
  return [...kept, ...folders.filter((folder) => !kept.includes(folder)).sort()];
}

/** The text of src/modules/index.ts for the folders there now. */
function modulesList() {
  const folders = moduleFolders();
  return [
    '// Written by `npm run modules:list` (scripts/modules-list.cjs) from the folders of src/modules/:',
    '// a new module is its folder, and this file is written again; a test fails while it differs.',
    ...folders.map((folder) => `import { ${exportOf(folder)} } from './${folder}';`),
    '',
    '/**',
    ' * Every module of the service: the app assembles the schema, the data model, the context and',
    " * what runs beside requests from this list alone. The schema's fields come in this order",
    " * (schema/schema.graphql is printed in it), and each module's loaders build on those listed",
    ' * before it: the list keeps its order, and a new module joins at the end.',
    ' */',
    'export const modules = [',
    ...folders.map((folder) => `  ${exportOf(folder)},`),
    '] as const;',
    '',
  ].join('\n');
}

module.exports = { modulesList, INDEX };

if (require.main === module) {
  fs.writeFileSync(INDEX, modulesList());
  console.log(`wrote ${path.relative(process.cwd(), INDEX)}`);
}
