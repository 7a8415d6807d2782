import { withoutSeal } from '../src/state-seal.js';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { SourceStatus } from '../src/daemon/index.js';
import { newStateDir } from './helpers/daemon-state-dir.js';
import { spawnDaemon } from './helpers/daemon-process.js';
import { TestEmulator } from './helpers/emulator.js';
import { REQUIRE_TAGS_SETTINGS, smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

async function historyOf(daemon: { get(p: string): Promise<Response> }): Promise<SourceStatus> {
  const body = (await (await daemon.get('/status?history=1')).json()) as { sources: SourceStatus[] };
  return body.sources[0]!;
}

async function start(t: TestContext, api: TestEmulator, dir: string, stateDir: string) {
  return spawnDaemon(
    t,
    { api: { url: api.url }, 'state-dir': stateDir, sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: '0 0 1 1 *' }] },
    { API_TOKEN: api.token },
  );
}

test('the pass history survives a restart, names what each pass changed, and a failed pass shows no stale change count', async (t) => {
  const api = await TestEmulator.start();
  t.after(() => api.close());
  const dir = await tempTree(t, smallRepo());
  const stateDir = await newStateDir(t);
  const first = await start(t, api, dir, stateDir);
  await waitFor('the start-up pass', async () => ((await historyOf(first)).history?.length === 1 ? true : undefined));
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'enforcement-level: [not, valid]\n');
  await waitFor('the failed pass', async () => ((await historyOf(first)).history?.length === 2 ? true : undefined));
  const failed = await historyOf(first);
  assert.equal(failed.result, 'failure');
  assert.equal(failed.lastPass?.drift, null);
  const line = first.logs().find((l) => l.msg === 'pass failed');
  assert.equal(line?.drift, null, 'the log gives the failed pass\'s own figure, not the last one');
  const page = await (await first.get('/status.html')).text();
  assert.match(page, /unknown: the last pass made no plan/);
  assert.doesNotMatch(page, /<b>5 changes<\/b> in the last plan/);

  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0);
  const files = await readdir(path.join(stateDir, 'history'));
  assert.deepEqual(files, ['local.json']);

  const second = await start(t, api, dir, stateDir);
  await waitFor('the history read back', async () => ((await historyOf(second)).history?.length ?? 0) >= 2 ? true : undefined);
  const kept = (await historyOf(second)).history ?? [];
  assert.deepEqual(kept.slice(-2).map((p) => [p.trigger, p.result]), [['file-change', 'failure'], ['start-up', 'success']], 'newest first, the first run\'s passes last');
  const oldest = kept[kept.length - 1]!;
  assert.equal(oldest.trigger, 'start-up');
  assert.equal(oldest.result, 'success');
  assert.ok(oldest.changes.some((c) => c.name === 'require-tags' && c.outcome === 'applied'));
  const restartedPage = await (await second.get('/status.html')).text();
  assert.match(restartedPage, /<td class="name">\+ require-tags, \+ limit-size|<td class="name">[^<]*\+ require-tags/);
  assert.ok(withoutSeal(await readFile(path.join(stateDir, 'history', 'local.json'), 'utf8')).startsWith('{"source":"local"'));
});

test('a corrupt history file is ignored with a warning naming it', async (t) => {
  const api = await TestEmulator.start();
  t.after(() => api.close());
  const dir = await tempTree(t, smallRepo());
  const stateDir = await newStateDir(t);
  await mkdir(path.join(stateDir, 'history'), { recursive: true });
  await writeFile(path.join(stateDir, 'history', 'local.json'), '{"source":"local","passes":[{"trunc');
  const daemon = await start(t, api, dir, stateDir);
  await waitFor('the start-up pass', async () => ((await historyOf(daemon)).history?.length === 1 ? true : undefined));
  const warnings = daemon.logs().filter((l) => l.msg === 'the pass history file is ignored; the history starts afresh').map((l) => path.basename(String(l.file)));
  assert.deepEqual(warnings, ['local.json']);
  assert.equal((await historyOf(daemon)).suspended, false);
});
