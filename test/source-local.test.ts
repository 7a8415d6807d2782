import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { silentLogger } from '../src/logger.js';
import { openSource } from '../src/source/index.js';
import { testSource } from './helpers/daemon-harness.js';
import { REQUIRE_TAGS_SETTINGS, smallRepo } from './helpers/repos.js';
import { tempTree, writeTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

/** Watches `dir` with a short debounce and keeps the bursts it reports, each as the files it names. */
async function watched(t: TestContext, dir: string) {
  const source = openSource(testSource('main', { path: dir }), { stateDir: dir, env: {}, logger: silentLogger() });
  const seen: string[][] = [];
  const watch = await source.watch((changed) => void seen.push([...changed]), 50);
  assert.ok(watch !== null, 'a local folder can be watched');
  t.after(() => watch.close());
  return { source, bursts: () => seen.length, seen };
}

test('a local source is read where it is, with no revision', async (t) => {
  const dir = await tempTree(t);
  const source = openSource(testSource('main', { path: dir }), { stateDir: dir, env: {}, logger: silentLogger() });
  assert.equal(source.kind, 'path');
  assert.deepEqual(await source.checkout(), { dir, revision: null });
});

test('a git source cannot be watched: its pushes arrive by webhook', async (t) => {
  const dir = await tempTree(t);
  const git = { url: 'https://example.com/acme/policies.git', ref: 'main', path: '.' };
  const source = openSource(testSource('remote', { path: null, git }), { stateDir: dir, env: {}, logger: silentLogger() });
  assert.equal(source.kind, 'git');
  assert.equal(await source.watch(() => undefined), null);
});

test('the watch of a local folder triggers only for files that can change the declared state', async (t) => {
  const dir = await tempTree(t, { ...smallRepo(), 'README.md': 'notes\n', 'policies/mocks/m.native': 'x\n' });
  const { bursts, seen } = await watched(t, dir);

  await writeFile(path.join(dir, 'README.md'), 'more notes\n');
  await writeTree(dir, { 'lib/helper.rego': 'package lib\n', 'policies/notes.md': 'x\n', 'policies/mocks/m.native': 'y\n', 'policies/storage/a_test.rego': 'package t\n' });
  await writeFile(path.join(dir, '.hidden'), 'x\n');
  // The edit of a declared file ends a burst: a file written before it that counted would be in it, or in one before it.
  await writeFile(path.join(dir, 'policies/security/require-tags.native'), 'main = rule { false }\n');
  await waitFor('a burst for the edited policy', () => (bursts() === 1 ? true : undefined));
  assert.deepEqual(seen, [['policies/security/require-tags.native']], 'no other file there declares anything');
  await writeTree(dir, { 'agent-pools/deploy.yaml': '{}\n' });
  await waitFor('a burst for the new pool file', () => (bursts() === 2 ? true : undefined));
  await rm(path.join(dir, 'policies/storage'), { recursive: true });
  await waitFor('a burst for the removed folder', () => (bursts() === 3 ? true : undefined));
});

test('.syncignore counts itself, and what it leaves out then triggers nothing', async (t) => {
  const dir = await tempTree(t, { ...smallRepo(), 'policies/drafts/d.native': 'x\n' });
  const { bursts, seen } = await watched(t, dir);

  await writeFile(path.join(dir, '.syncignore'), 'drafts/\n');
  // A burst is reported once the rules it brought are in force.
  await waitFor('a burst for .syncignore', () => (bursts() === 1 ? true : undefined));
  await writeFile(path.join(dir, 'policies/drafts/d.native'), 'y\n');
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'description: Edited.\n');
  await waitFor('a burst for a declared file', () => (bursts() === 2 ? true : undefined));
  assert.deepEqual(seen, [['.syncignore'], [REQUIRE_TAGS_SETTINGS]], 'a file the new .syncignore leaves out triggers nothing');
});

test('a policy set folder anywhere in the repo counts: its config file, and the files under it', async (t) => {
  const config = 'policy "one" {\n  source = "./one.sentinel"\n}\n';
  const dir = await tempTree(t, { ...smallRepo(), 'libraries/fsbp/sentinel.hcl': config, 'libraries/fsbp/one.sentinel': 'main = rule { true }\n', 'libraries/notes/n.md': 'x\n' });
  const { bursts, seen } = await watched(t, dir);

  await writeFile(path.join(dir, 'libraries/notes/n.md'), 'y\n');
  // The edit of a file in the set ends a burst: the note written before it would be in it, or in one before it.
  await writeFile(path.join(dir, 'libraries/fsbp/one.sentinel'), 'main = rule { false }\n');
  await waitFor('a burst for the set\'s file', () => (bursts() === 1 ? true : undefined));
  assert.deepEqual(seen, [['libraries/fsbp/one.sentinel']]);
  await writeTree(dir, { 'vendor/lib/policies.hcl': 'policy "p" {\n  query = "data.p.deny"\n}\n' });
  await waitFor('a burst for a new set\'s config file', () => (bursts() === 2 ? true : undefined));
  assert.ok(seen[1]?.includes('vendor/lib/policies.hcl'), JSON.stringify(seen));
});
