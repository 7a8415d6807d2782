/**
 * The command line as one JavaScript file per entry point, its runtime dependencies inside, so that
 * `node bundle/policy-pool-sync.mjs …` needs nothing but Node: what the GitHub Action, `npm pack` and `npm install -g`
 * (from the registry or a git URL) run, with no build. The package's version and the JSON schemas are embedded.
 * `bundle/healthcheck.mjs` is the container's HEALTHCHECK. Built from the TypeScript sources with the esbuild of
 * node_modules (no network); the output is the same bytes for the same sources, which test/bundle.test.ts checks
 * against the committed files. `--metafile FILE` also writes esbuild's account of every input and import (the test
 * reads it to check that nothing but Node's builtins is left outside).
 *
 *   node scripts/bundle.mjs [OUT_DIR] [--metafile FILE]     (default: bundle/)
 */
import { build } from 'esbuild';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
const { values, positionals } = parseArgs({ options: { metafile: { type: 'string' } }, allowPositionals: true });
const outdir = path.resolve(positionals[0] ?? path.join(root, 'bundle'));

/** The package's version and every schema, in place of src/embedded.ts (which says "nothing embedded"). */
function embedded() {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const schemas = {};
  for (const file of readdirSync(path.join(root, 'schemas')).sort()) {
    if (file.endsWith('.schema.json')) schemas[file.slice(0, -'.schema.json'.length)] = JSON.parse(readFileSync(path.join(root, 'schemas', file), 'utf8'));
  }
  return `export const EMBEDDED = ${JSON.stringify({ version, schemas })};\n`;
}

const result = await build({
  absWorkingDir: root,
  entryPoints: { 'policy-pool-sync': 'src/cli.ts', 'github-comment': 'src/ci/github-comment.ts', healthcheck: 'src/healthcheck.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: values.metafile !== undefined,
  // The CommonJS dependencies (pino, ajv, ...) call require(); in an ES module it comes from createRequire.
  banner: { js: "import { createRequire as __ppsCreateRequire } from 'node:module';\nconst require = __ppsCreateRequire(import.meta.url);" },
  plugins: [
    {
      name: 'embedded',
      setup(builder) {
        builder.onLoad({ filter: /[\\/]src[\\/]embedded\.ts$/ }, () => ({ contents: embedded(), loader: 'js' }));
      },
    },
    {
      // debug (under simple-git) tries require('supports-color') and goes on without it. Left unresolved, the bundle
      // would load whatever supports-color a node_modules above it holds; inside, it is an empty module: no colours.
      name: 'no-optional-requires',
      setup(builder) {
        builder.onResolve({ filter: /^supports-color$/ }, () => ({ path: 'supports-color', namespace: 'empty' }));
        builder.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
      },
    },
  ],
});
if (values.metafile !== undefined) writeFileSync(values.metafile, JSON.stringify(result.metafile));
