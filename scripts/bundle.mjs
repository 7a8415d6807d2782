/**
 * The command line as one JavaScript file per entry point, its runtime dependencies inside, so that
 * `node bundle/policy-pool-sync.mjs …` needs nothing but Node: what the GitHub Action, `npm pack` and `npm install -g`
 * (from the registry or a git URL) run, with no build. The package's version is embedded, and the schemas' validators
 * are compiled in (src/yaml/schema-validators.generated.ts).
 * `bundle/healthcheck.mjs` is the container's HEALTHCHECK; `bundle/hcl-worker.mjs` the HCL parser's worker thread. Built from the TypeScript sources with the esbuild of
 * node_modules (no network); the output is the same bytes for the same sources, which test/bundle.test.ts checks
 * against the committed files. `--metafile FILE` also writes esbuild's account of every input and import (the test
 * reads it to check that nothing but Node's builtins is left outside).
 *
 *   node scripts/bundle.mjs [OUT_DIR] [--metafile FILE]     (default: bundle/)
 */
import { build } from 'esbuild';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
const { values, positionals } = parseArgs({ options: { metafile: { type: 'string' } }, allowPositionals: true });
const outdir = path.resolve(positionals[0] ?? path.join(root, 'bundle'));

/** The package's version, in place of src/embedded.ts (which says "nothing embedded"). */
function embedded() {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return `export const EMBEDDED = ${JSON.stringify({ version })};\n`;
}

const result = await build({
  absWorkingDir: root,
  entryPoints: { 'policy-pool-sync': 'src/cli.ts', 'github-comment': 'src/ci/github-comment.ts', healthcheck: 'src/healthcheck.ts', 'hcl-worker': 'src/hcl-worker.ts' },
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
      // @cdktf/hcl2json reads its WebAssembly from beside its own files (__dirname, which an ES module bundle lacks):
      // the bundle reads it from hcl2json.wasm.gz beside itself, copied there below.
      name: 'hcl2json-wasm',
      setup(builder) {
        builder.onLoad({ filter: /[\\/]@cdktf[\\/]hcl2json[\\/]lib[\\/]bridge\.js$/ }, (args) => {
          const text = readFileSync(args.path, 'utf8');
          const from = '(0, path_1.join)(__dirname, "..", "main.wasm.gz")';
          if (!text.includes(from)) throw new Error(`${args.path} no longer reads main.wasm.gz as this build expects`);
          // The banner's require is made from the bundle's own URL: it resolves the file beside the bundle.
          return { contents: text.replace(from, 'require.resolve("./hcl2json.wasm.gz")'), loader: 'js' };
        });
      },
    },
    {
      // debug (under simple-git) tries require('supports-color') and goes on without it. Left unresolved, the bundle
      // would load whatever supports-color a node_modules above it holds; inside, it is an empty module: no colours.
      // Go's wasm_exec.js (under @cdktf/hcl2json) requires 'performance' only where globalThis lacks it, never on Node 20.
      name: 'no-optional-requires',
      setup(builder) {
        builder.onResolve({ filter: /^(supports-color|performance)$/ }, (args) => ({ path: args.path, namespace: 'empty' }));
        builder.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
      },
    },
  ],
});
if (values.metafile !== undefined) writeFileSync(values.metafile, JSON.stringify(result.metafile));
const hcl2json = path.dirname(createRequire(import.meta.url).resolve('@cdktf/hcl2json/package.json'));
copyFileSync(path.join(hcl2json, 'main.wasm.gz'), path.join(outdir, 'hcl2json.wasm.gz'));
