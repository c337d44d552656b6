// The layers of the service, checked by `npm run lint:layers` (part of `npm test`):
//   app (src/*.ts, src/db/)  →  rest/  →  src/modules/  →  src/platform/
// A value import may only point down (or within its own layer); a type-only import may also
// name a type of a layer above (the operation Context, the Config shape), since it leaves no
// trace at run time, except from the platform, which imports nothing above it, not even a type:
// what it needs (the settings' slices it reads among them) is declared in it. A module uses another module only where that one is its foundation (below),
// and only through its face (its index.ts); never the registry (src/modules/index.ts), which
// imports every module, not even for a type. No file reaches itself, through any import.
const APP = '^src/[^/]+\\.ts$|^src/db/';
const REST = '^rest/';
const MODULES = '^src/modules/';
const PLATFORM = '^src/platform/';

/** Which modules each module may import from (any other is out of its room). */
const MODULE_FOUNDATIONS = {
  user: [],
  resource: ['user'],
  follow: ['user'],
  meeting: ['user', 'resource'],
  auth: ['user'],
  'meeting-events': ['user', 'meeting'],
  node: ['user', 'meeting', 'follow', 'resource'],
  availability: ['user', 'meeting', 'resource'],
  calendar: ['user', 'meeting', 'resource'],
  webhook: ['user', 'meeting', 'meeting-events'],
  mail: ['user', 'meeting', 'meeting-events', 'calendar', 'resource'],
};

/** Which platform folders each platform folder may import from. */
const PLATFORM_FOUNDATIONS = {
  shared: [],
  settings: [],
  observability: ['shared', 'settings'],
  sql: ['shared', 'observability'],
  postgres: ['shared', 'observability', 'sql', 'settings'],
  redis: ['shared', 'observability'],
  auth: ['shared', 'observability', 'settings'],
  idempotency: ['shared', 'observability', 'sql'],
  http: ['shared', 'observability', 'settings', 'idempotency'],
  'answer-cache': ['shared', 'observability', 'settings'],
  graphql: [
    'shared',
    'observability',
    'sql',
    'auth',
    'http',
    'settings',
    'idempotency',
    'answer-cache',
  ],
  live: ['shared', 'observability', 'sql', 'auth', 'graphql', 'settings', 'answer-cache'],
  jobs: ['shared', 'observability', 'sql'],
  composition: ['shared', 'observability', 'sql'],
};

const up = (name, from, to, comment, { typesToo = false } = {}) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: to, ...(!typesToo && { dependencyTypesNot: ['type-only'] }) },
});

/**
 * One rule per folder of `layer`: it imports (values) only from itself and its foundations, so the
 * folders form no cycle. Anything else under `layer` — another folder, or the layer's own index
 * (a registry importing every folder) — is out of its room.
 */
function foundations(layer, map) {
  const unlisted = {
    name: `${layer.split('/').pop()}-folder-unlisted`,
    comment: `A folder of ${layer} not in its foundations list imports nothing else of ${layer}.`,
    severity: 'error',
    from: { path: `^${layer}/((?!(?:${Object.keys(map).join('|')})/)[^/]+)/` },
    to: { path: `^${layer}/`, pathNot: `^${layer}/$1/`, dependencyTypesNot: ['type-only'] },
  };
  return [
    unlisted,
    ...Object.entries(map).map(([folder, below]) => ({
      name: `${layer.split('/').pop()}-${folder}-outside-its-foundations`,
      comment: `${folder} imports only itself, ${below.join(', ') || 'nothing else'} of ${layer}.`,
      severity: 'error',
      from: { path: `^${layer}/${folder}/` },
      to: {
        path: `^${layer}/`,
        pathNot: `^${layer}/(${[folder, ...below].join('|')})/`,
        dependencyTypesNot: ['type-only'],
      },
    })),
  ];
}

module.exports = {
  forbidden: [
    up(
      'platform-imports-above',
      PLATFORM,
      `${MODULES}|${REST}|${APP}`,
      'The platform never imports a module, the REST face or the app, not even a type.',
      { typesToo: true },
    ),
    up(
      'module-imports-above',
      MODULES,
      `${REST}|${APP}`,
      'A module never imports the REST face or the app.',
    ),
    up('rest-imports-app', REST, APP, 'The REST face gets what it needs of the app passed in.'),
    ...foundations('src/modules', MODULE_FOUNDATIONS),
    ...foundations('src/platform', PLATFORM_FOUNDATIONS),
    up(
      'app-imports-db-programs',
      '^src/[^/]+\\.ts$',
      '^src/db/(?!migrations/)',
      'The app uses the migrations, not the database programs (migrate, seed).',
    ),
    up(
      'migrations-import-above',
      '^src/db/migrations/',
      `${MODULES}|${REST}|${APP.replace('|^src/db/', '')}`,
      'A migration stands alone: later code changes must not change it.',
    ),
    {
      name: 'module-reaches-into-another',
      comment: 'Another module is used through its face (its index.ts), never its internal files.',
      severity: 'error',
      from: { path: `${MODULES}([^/]+)/` },
      to: { path: `${MODULES}[^/]+/`, pathNot: `${MODULES}($1/|[^/]+/index\\.ts$)` },
    },
    {
      name: 'sub-folder-reached-past-its-face',
      comment:
        "A module's sub-folder is used by its sibling sub-folders through its index.ts; the " +
        "module's own top-level files, which compose it (its descriptor, context), reach in.",
      severity: 'error',
      from: { path: `${MODULES}([^/]+)/([^/]+)/[^/]+$` },
      to: {
        path: `${MODULES}$1/[^/]+/[^/]+$`,
        pathNot: [`${MODULES}$1/$2/`, '/index\\.ts$'],
      },
    },
    {
      name: 'module-imports-registry',
      comment: 'The registry lists the modules; a module never imports it, not even a type.',
      severity: 'error',
      from: { path: `${MODULES}[^/]+/` },
      to: { path: `${MODULES}index\\.ts$` },
    },
    {
      name: 'no-two-way-folders',
      comment:
        'No folder reaches itself through other folders (a folder and its sub-folders count as ' +
        'one): two folders never import each other, types included.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-cycles',
      comment: 'No file reaches itself, through any import (types included).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|rest)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
