/** The layers of src/ as ARCHITECTURE.md draws them, held by dependency-cruiser (.dependency-cruiser.cjs): no upward import, no cycle. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from './helpers/repo-root.js';

const run = promisify(execFile);

// TypeScript, a CommonJS file of 9 MB, is read as such, not first compiled to look for ES module syntax; V8 works on
// the process's own thread, as in the test processes (test/run.mjs).
test('src/ keeps its layers and has no import cycle (dependency-cruiser)', async () => {
  const bin = path.join(REPO_ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const result = await run(process.execPath, ['--no-experimental-detect-module', '--single-threaded', bin, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 })
    .then(({ stdout }) => ({ code: 0, stdout }), (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, stdout: error.stdout ?? '' }));
  assert.equal(result.code, 0, result.stdout);
  assert.match(result.stdout, /no dependency violations found/);
});

test('every folder and top-level file of src/ has a layer', () => {
  const { layers, apart } = (createRequire(import.meta.url)(path.join(REPO_ROOT, '.dependency-cruiser.cjs')) as { layers: { layers: string[][]; apart: string[] } }).layers;
  const placed = new Set([...layers.flat(), ...apart, 'cli']);
  const entries = readdirSync(path.join(REPO_ROOT, 'src'), { withFileTypes: true }).map((e) => (e.isDirectory() ? e.name : e.name.replace(/\.ts$/, '')));
  assert.deepEqual(entries.filter((name) => !placed.has(name)), [], 'entries of src/ missing from LAYERS in .dependency-cruiser.cjs');
});

test('ARCHITECTURE.md names every folder of src/', () => {
  const text = readFileSync(path.join(REPO_ROOT, 'ARCHITECTURE.md'), 'utf8');
  const folders = readdirSync(path.join(REPO_ROOT, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  const missing = folders.filter((folder) => !text.includes(`\`${folder}\``) && !text.includes(`src/${folder}/`));
  assert.deepEqual(missing, [], 'folders of src/ that ARCHITECTURE.md does not name');
});
