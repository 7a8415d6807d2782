/**
 * Before the suites run: src, test and bench transpiled into .test-build by esbuild (each file on its own, types
 * stripped, about a second), so the suites run as plain JavaScript and no test process pays for a TypeScript loader.
 * The type check is not done here: `npm test` runs `tsc -p tsconfig.check.json` beside the suites (test/run.mjs).
 * What it transpiled from src is also the build the tests of the binary run (dist/, as `npm run build` lays it out),
 * copied there with its source maps pointed at src.
 * Everything else the code finds from its own location (package.json, schemas, examples, the fixtures and goldens,
 * ...) is linked into .test-build at the same place. One file still runs from source:
 * `node --import tsx --test test/NAME.test.ts`.
 *
 *   node test/compile.mjs          (also imported by test/run.mjs)
 */
import { cpSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, '.test-build');
const COMPILED = ['src', 'test', 'bench'];
const NEVER = ['.git', '.test-build', 'node_modules'];

/** Every .ts file of the compiled folders (not the declarations). */
function sources() {
  const files = [];
  for (const dir of COMPILED) {
    for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path.join(entry.parentPath, entry.name));
    }
  }
  return files;
}

/** dist as `npm run build` lays it out: .test-build/src, with each source map's sources relative to dist. */
function copyBuild() {
  const dist = path.join(root, 'dist');
  const built = path.join(out, 'src');
  rmSync(dist, { recursive: true, force: true });
  cpSync(built, dist, { recursive: true });
  for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    if (!entry.name.endsWith('.js.map')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const from = path.join(built, path.relative(dist, entry.parentPath));
    const map = JSON.parse(readFileSync(file, 'utf8'));
    map.sources = map.sources.map((source) => path.relative(entry.parentPath, path.resolve(from, source)).split(path.sep).join('/'));
    writeFileSync(file, JSON.stringify(map));
  }
}

const holdsTypeScript = (dir) =>
  readdirSync(dir, { withFileTypes: true }).some((e) => (e.isDirectory() ? holdsTypeScript(path.join(dir, e.name)) : e.name.endsWith('.ts')));

/** Links every file of `rel` beside what was compiled from it (the .ts sources too), and each folder without any .ts in it. */
function linkRest(rel) {
  for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = path.join(rel, entry.name);
    if (rel === '' && NEVER.includes(entry.name)) continue;
    if (entry.isDirectory() && (COMPILED.includes(child) || (rel !== '' && holdsTypeScript(path.join(root, child))))) linkRest(child);
    else symlinkSync(path.relative(path.join(out, rel), path.join(root, child)), path.join(out, child));
  }
}

/** Writes .test-build and dist from the sources; throws when esbuild cannot read one. */
export async function compile() {
  rmSync(out, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: sources(),
    outdir: out,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
  });
  copyBuild();
  linkRest('');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await compile().catch(() => process.exit(1));
}
