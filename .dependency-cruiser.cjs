/**
 * The layering of the code, checked by `npm test` (`npm run lint:deps`).
 * docs/ARCHITECTURE.md explains each folder; docs/decisions/0005-layout.md the reasons.
 *
 * Serving code is a stack of folders: each may import the folders below it, never one above.
 * Dev tools (training/, benchmarks/, test/) stand on top of the stack and serving code never imports them.
 */

/** Top to bottom. A folder may import only folders later in this list (and itself). */
const LAYERS = [
  'cli', // the operator CLI (bin/content-firewall.js): its commands, the red-team runner; nothing serving imports it
  'server', // process entry points and the wiring: the only place that constructs long-lived things
  'api', // HTTP only: buildApp(services) = middleware + routes; starts nothing
  'jobs', // Agenda job definitions
  'services', // use cases; they own their input types
  'workers', // Piscina pool + FIFO dispatcher: implements engine's ModelClient
  'store', // PostgreSQL: repositories and the group-commit writer (rows may hold engine's types)
  'engine', // detection and decision: no HTTP, no SQL
  'inference', // serve-time model code: manifest, loaders, featurizers, tokenizers
  'config', // config.ts: zod over process.env
  'lib', // pure helpers, the error catalogue, process-wide metrics
  'client', // the published package: imports nothing of ours
];

const TOOLS = ['training', 'benchmarks', 'deploy', 'test'];
const SERVING = LAYERS;

/** The path pattern of a layer name ('config' is the one root file). */
const at = (layer) => (layer === 'config' ? '^config\\.ts$' : `^${layer}/`);
const anyOf = (layers) => layers.map(at).join('|');

const downhill = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `${layer}-imports-downhill`,
  comment: `${layer}/ sits above ${LAYERS.slice(i + 1).join(', ')}: it must not import ${LAYERS.slice(0, i).join(', ') || 'nothing above'}`,
  severity: 'error',
  from: { path: at(layer) },
  to: { path: anyOf(LAYERS.slice(0, i)) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle of imports ties its files into one unit that cannot be read, tested or moved alone.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...downhill.filter((rule) => rule.to.path !== ''),
    {
      name: 'client-imports-nothing-of-ours',
      comment: 'client/ is the published package: it may use Node built-ins only, nothing else of the repository.',
      severity: 'error',
      from: { path: '^client/' },
      to: { pathNot: ['^client/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'serving-never-imports-tools',
      comment: 'training/, benchmarks/ and test/ are dev-only: the service must start without them.',
      severity: 'error',
      from: { path: anyOf(SERVING) },
      to: { path: `^(${TOOLS.join('|')})/` },
    },
    {
      name: 'training-never-imports-benchmarks',
      severity: 'error',
      from: { path: '^training/' },
      to: { path: '^(benchmarks|test)/' },
    },
    {
      name: 'benchmarks-never-import-tests',
      severity: 'error',
      from: { path: '^benchmarks/' },
      to: { path: '^test/' },
    },
    {
      name: 'deploy-never-imports-tests',
      comment: 'deploy/ (the topology and the artifacts rendered from it) is read by the test bed, never the reverse.',
      severity: 'error',
      from: { path: '^deploy/' },
      to: { path: '^(benchmarks|test|training)/' },
    },
    {
      name: 'detection-has-no-sql',
      comment: 'engine/, workers/ and inference/ neither read nor write the database.',
      severity: 'error',
      from: { path: '^(engine|workers|inference)/' },
      to: { path: ['^store/', '^node_modules/(pg|pg-pool|ioredis)/'] },
    },
    {
      name: 'engine-has-no-http-and-no-threads',
      comment: 'engine/ talks to models through its ModelClient interface; workers/ implements it with Piscina.',
      severity: 'error',
      from: { path: '^(engine|inference)/' },
      to: { path: '^node_modules/(express|piscina)/' },
    },
    {
      name: 'api-has-no-sql',
      comment: 'api/ reaches the database through services/ only (it may name a row type that a service returns).',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: ['^store/', '^node_modules/(pg|pg-pool)/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'dashboard-imports-only-the-client',
      comment:
        'dashboard/ is the web console: it reaches the API through the client package (client/) only, never serving code.',
      severity: 'error',
      from: { path: '^dashboard/' },
      to: { pathNot: ['^dashboard/', '^client/'], dependencyTypesNot: ['npm', 'npm-dev', 'core'] },
    },
    {
      name: 'nothing-imports-the-dashboard',
      comment:
        'dashboard/ is built into static files the service serves (api/dashboard.ts): no code imports it (unit tests may, for its pure functions).',
      severity: 'error',
      from: { pathNot: ['^dashboard/', '^test/unit/'] },
      to: { path: '^dashboard/' },
    },
    {
      name: 'models-holds-artifacts-only',
      comment: 'models/ holds manifest, model files and cards: code lives in inference/ (serving) or training/.',
      severity: 'error',
      from: {},
      to: { path: '^models/.*\\.(ts|js|mjs)$' },
    },
    {
      name: 'training-libraries-stay-in-training',
      comment: 'TensorFlow.js, onnx-proto and faker are dev dependencies: serving code must not import them.',
      severity: 'error',
      from: { path: anyOf(SERVING) },
      to: { path: '^node_modules/(@tensorflow|onnx-proto|@faker-js)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules/', '^test/fixtures/', '^client/dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
