import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import type { SourceStatus } from '../src/daemon/index.js';
import { firstSourceStatus as status, spawnDaemon } from './helpers/daemon-process.js';
import { TestEmulator } from './helpers/emulator.js';
import { startReceiver } from './helpers/receiver.js';
import { REQUIRE_TAGS_DESCRIPTION, REQUIRE_TAGS_SETTINGS, smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

type Change = { name: string; reason: string };

test('a change the repo asked for "differs"; the daemon calls it drift only when the repo did not change', async (t) => {
  const api = await TestEmulator.start();
  t.after(() => api.close());
  const hook = await startReceiver(t);
  const dir = await tempTree(t, smallRepo());
  const daemon = await spawnDaemon(
    t,
    {
      api: { url: api.url },
      sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: '0 0 1 1 *' }],
      notifications: [{ name: 'ops', type: 'webhook', 'url-env': 'HOOK' }],
    },
    { API_TOKEN: api.token, CONTROL_TOKEN: 'c-token-0123456789', HOOK: hook.url },
  );
  const passed = (trigger: string) =>
    waitFor(`the ${trigger} pass`, async () => {
      const s = await status(daemon);
      return !s.running && s.lastPass?.trigger === trigger && s.result === 'success' ? s : undefined;
    }, 20_000);
  const requireTags = (s: SourceStatus): Change | undefined => s.lastPass?.changes.find((c) => c.name === 'require-tags');
  const hookChange = (event: string): Change | undefined =>
    ([...hook.received].reverse().find((r) => r.json.event === event)?.json.changes as Change[] | undefined)?.find((c) => c.name === 'require-tags');
  await passed('start-up');
  await waitFor('the start-up event', () => hook.received[0]);

  // The repo asks for another level: a change, not drift.
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), `description: ${REQUIRE_TAGS_DESCRIPTION}\nenforcement-level: hard-mandatory\n`);
  const asked = await passed('file-change');
  assert.equal(requireTags(asked)?.reason, 'differs in enforcement-level');
  assert.equal(asked.lastPass?.liveDrift, false);
  await waitFor('the applied event', () => (hook.received.length >= 2 ? true : undefined));
  assert.equal(hookChange('applied')?.reason, 'differs in enforcement-level');

  // Someone sets it back in the API while the repo stays as it was: drift.
  const policy = (await api.policies()).find((p) => p.name === 'require-tags');
  const patched = await api.call('PATCH', `/policies/${String(policy?.id)}`, { body: { data: { type: 'policies', attributes: { 'enforcement-level': 'advisory' } } } });
  assert.equal(patched.status, 200, patched.text);
  const sync = await fetch(`${daemon.origin}/sources/local/sync?wait=1`, { method: 'POST', headers: { authorization: 'Bearer c-token-0123456789' } });
  assert.equal(sync.status, 200);
  const drifted = await passed('sync');
  assert.equal(requireTags(drifted)?.reason, 'drift in enforcement-level');
  assert.equal(drifted.lastPass?.liveDrift, true);
  const page = await (await daemon.get('/status.html')).text();
  assert.match(page, /Drift found by the last pass/);
  assert.match(page, /drift in enforcement-level/);
  assert.match(page, /: 1 change, success</, 'the bar of the pass the repo asked for');
  assert.match(page, /: 1 change \(drift\), success</, 'the bar of the pass that repaired drift');
  await waitFor('the drift event', () => hookChange('drift'));
  assert.equal(hookChange('drift')?.reason, 'drift in enforcement-level');
  assert.match(hook.received.find((r) => r.json.event === 'drift')?.json.summary, /found drift and repaired 1 change/);
});
