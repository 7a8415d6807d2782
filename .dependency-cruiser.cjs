/**
 * The layers of src/ (see ARCHITECTURE.md, "Allowed import directions"), held by `npm test` (test/architecture.test.ts).
 * A folder (or top-level file) imports only from layers below it, or from a folder named beside it in `beside`; the
 * emulator stands apart: it imports only the base, and only the daemon and the command line start it. No cycles,
 * type-only imports included.
 */
const LAYERS = [
  ['embedded', 'path-inside', 'coalesced-writes', 'loop-turn', 'model', 'order', 'errors', 'line-ends', 'suggest', 'plural', 'code-content', 'redact', 'map-limit', 'host-port', 'hcl', 'hcl-worker', 'hcl-outline'],
  ['logger', 'version', 'yaml', 'cron', 'state-dir', 'state-seal', 'http', 'policy-set-config-schema'],
  ['signals', 'progress', 'config'],
  ['api', 'declared', 'leader'],
  ['plan', 'source', 'live'],
  ['apply', 'output', 'export'],
  ['session', 'reconcile'],
  ['notify', 'operations'],
  ['server'],
  ['daemon', 'cli', 'ci', 'healthcheck'],
];
/** Imports within one layer that the design allows: from → to. */
const BESIDE = [
  ['live', 'plan'],
  ['reconcile', 'session'],
  ['cli', 'daemon'],
  ['hcl', 'hcl-worker'],
];
const APART = ['emulator'];
const STARTS_APART = ['daemon', 'cli'];

/** `src/<name>/…` or `src/<name>.ts`. */
const at = (names) => `^src/(${names.join('|')})(/|\\.ts$)`;
const layerOf = new Map(LAYERS.flatMap((names, index) => names.map((name) => [name, index])));
const forbidden = [
  { name: 'no-circular', severity: 'error', comment: 'An import cycle, type-only imports included.', from: {}, to: { circular: true } },
  { name: 'no-unknown-folder', severity: 'error', comment: 'Every folder of src/ has a layer: add a new one to LAYERS here and to ARCHITECTURE.md.', from: { path: '^src/', pathNot: at([...layerOf.keys(), ...APART, 'cli\\.ts']) }, to: {} },
];
for (const [name, layer] of layerOf) {
  const above = [...layerOf].filter(([other, otherLayer]) => otherLayer > layer || (otherLayer === layer && other !== name && !BESIDE.some(([from, to]) => from === name && to === other)));
  if (above.length === 0) continue;
  forbidden.push({
    name: `layer-${name}`,
    severity: 'error',
    comment: `${name} (layer ${layer + 1}) imports only from layers below it${BESIDE.some(([from]) => from === name) ? ' and the folders beside it' : ''}.`,
    from: { path: at([name]) },
    to: { path: at(above.map(([other]) => other)) },
  });
}
forbidden.push(
  { name: 'emulator-apart', severity: 'error', comment: 'The emulator imports only the base layers (1 and 2).', from: { path: at(APART) }, to: { path: '^src/', pathNot: at([...APART, ...LAYERS[0], ...LAYERS[1]]) } },
  { name: 'emulator-started-by', severity: 'error', comment: 'Only the daemon (embedded mode) and the command line start the emulator.', from: { path: '^src/', pathNot: at([...APART, ...STARTS_APART]) }, to: { path: at(APART) } },
);

module.exports = {
  forbidden,
  options: {
    // A generated module (src/yaml/schema-validators.generated.ts: ajv's code, 0.6 MB) is a module of the graph, not read.
    doNotFollow: { path: ['node_modules', '\\.generated\\.ts$'] },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    // src/ is ES modules only: no require(), AMD or triple-slash directive to look for, and only .ts files to find.
    moduleSystems: ['es6'],
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    // Nothing is computed that no rule reads (reachability, metrics).
    skipAnalysisNotInRules: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
// For test/architecture.test.ts, which checks that every folder and file of src/ has a layer (not a key of the config).
Object.defineProperty(module.exports, 'layers', { value: { layers: LAYERS, apart: APART }, enumerable: false });
