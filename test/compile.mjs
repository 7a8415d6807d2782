/**
 * Before `npm test` runs the suites: a type-check of src, test and bench (as `npm run typecheck` does) that compiles
 * them into .test-build, so the suites run as plain JavaScript and no test process pays for a TypeScript loader.
 * What it compiled from src is also the build (`npm run build`: src into dist, which the tests of the binary run):
 * the same compiler options give the same JavaScript, so it is copied there with its source maps pointed at src,
 * instead of compiling src a second time.
 * Everything else the code finds from its own location (package.json, schemas, dist, examples, the fixtures and
 * goldens, ...) is linked into .test-build at the same place. One file still runs from source:
 * `node --import tsx --test test/NAME.test.ts`.
 */
import { spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, '.test-build');
const COMPILED = ['src', 'test', 'bench'];
const NEVER = ['.git', '.test-build', 'node_modules'];

rmSync(out, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compile = (project) =>
  new Promise((resolve) => spawn(process.execPath, [tsc, '-p', path.join(root, project)], { stdio: 'inherit' }).on('close', resolve));
if ((await compile('tsconfig.test.json')) !== 0) process.exit(1);

/** dist as `npm run build` writes it: .test-build/src, with each source map's sources relative to dist. */
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
copyBuild();

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
linkRest('');
