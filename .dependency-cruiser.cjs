// The architecture as rules (npm run deps, part of npm test; see docs/architecture.md).
//
// Folders sit in layers, innermost first. A folder may import its own files and folders of
// inner layers only: never an outer layer, nor another folder of its own layer. So every
// import points inward and no two folders can depend on each other.
const LAYERS = [
  // storage: the database seam: schema, migrations, one file of queries per table.
  // client: the typed client (docwright/client); innermost and apart, it imports no other folder.
  ['storage', 'client'],
  ['domain/errors', 'domain/clock', 'domain/ids', 'domain/access'], // the domain's kernel
  ['domain/secrets', 'domain/keys', 'domain/analytics', 'domain/rate-limit', 'domain/network'],
  ['domain/projects', 'domain/users', 'domain/webhooks'],
  ['domain/jobs', 'domain/sessions'],
  ['domain/agent', 'domain/review'],
  ['domain/automations'], // starts agent jobs on triggers; the runner's scheduler runs its schedules
  ['domain/runner'],
  ['config'], // reads the environment once, into a typed Config
  ['logging'],
  // Docwright's MCP tools, defined against an interface; http binds them to the services, cli to the client.
  ['mcp'],
  ['integrations', 'http'], // adapters behind the domain's ports; the HTTP API
  ['app'], // the composition root
  ['cli'],
  // The browser application: bundled apart, it may import only types, and only from http (see below).
  ['dashboard'],
];

const pathOf = (folder) => `^src/${folder}(/|\\.ts$)`;
const forbidden = LAYERS.flatMap((layer, index) =>
  layer.flatMap((folder) => {
    const others = [...layer.filter((f) => f !== folder), ...LAYERS.slice(index + 1).flat()];
    if (others.length === 0) return [];
    return {
      name: `layers: ${folder}`,
      comment: `${folder} may import only folders of inner layers: not ${others.join(', ')}`,
      severity: 'error',
      from: { path: pathOf(folder) },
      to: { path: others.map((f) => `(${pathOf(f)})`).join('|') },
    };
  }),
);

module.exports = {
  forbidden: [
    ...forbidden,
    {
      name: 'dashboard: types from http only',
      comment:
        'The dashboard runs in the browser: of the server it imports only the types of the HTTP schemas (import type), which the bundle drops.',
      severity: 'error',
      from: { path: '^src/dashboard/' },
      to: { path: '^src/(?!dashboard/)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'dashboard: nothing beyond http',
      comment: 'Payload types come from the HTTP schemas (src/http), not from the domain or storage.',
      severity: 'error',
      from: { path: '^src/dashboard/' },
      to: { path: '^src/(?!dashboard/|http/)' },
    },
    {
      name: 'no-circular',
      comment: 'Modules must not import each other, directly or through others.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'every-folder-in-a-layer',
      comment: 'A new top-level folder of src/ (or of src/domain/) needs a place in LAYERS.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: LAYERS.flat()
          .map((f) => `(${pathOf(f)})`)
          .join('|'),
      },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API yet: swc parses the sources, and sees type-only
    // imports on its own (tsPreCompilationDeps would ask for the TypeScript compiler).
    parser: 'swc',
    tsPreCompilationDeps: false,
    // Packages that declare their entry points in "exports" only (typebox, kysely/migration).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
    },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  },
};
