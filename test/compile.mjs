/**
 * Before `npm test` runs the suites, side by side: the build (`npm run build`: src into dist, which the tests of
 * the binary run), and a type-check of src, test and bench (as `npm run typecheck` does) that compiles them into
 * .test-build, so the suites run as plain JavaScript and no test process pays for a TypeScript loader.
 * Everything else the code finds from its own location (package.json, schemas, dist, examples, the fixtures and
 * goldens, ...) is linked into .test-build at the same place. One file still runs from source:
 * `node --import tsx --test test/NAME.test.ts`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, rmSync, symlinkSync } from 'node:fs';
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
const codes = await Promise.all([compile('tsconfig.json'), compile('tsconfig.test.json')]);
if (codes.some((code) => code !== 0)) process.exit(1);

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
