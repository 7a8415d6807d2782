/** The daemon delivers a declared agent token to its token folder, and its text is in no log, /status, page, metric or notification. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { firstSourceStatus as status, spawnDaemon } from './helpers/daemon-process.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { startReceiver } from './helpers/receiver.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

test('a token the daemon makes reaches its file and nothing else the daemon shows', async (t) => {
  const api = await TestEmulator.start({ organizations: [{ name: ORG, agentPools: [{ name: 'build' }] }] });
  t.after(() => api.close());
  const hook = await startReceiver(t);
  const tokens = await tempTree(t, {});
  const dir = await tempTree(t, { 'agent-pools/build.yaml': 'tokens:\n  - description: k8s-prod\n    deliver-to: { file: prod/build }\n' });
  const daemon = await spawnDaemon(
    t,
    {
      api: { url: api.url },
      tokens: { dir: tokens },
      sources: [{ name: 'local', organization: ORG, path: dir, schedule: '0 0 1 1 *' }],
      notifications: [{ name: 'ops', type: 'webhook', 'url-env': 'HOOK' }],
    },
    { API_TOKEN: api.token, HOOK: hook.url, LOG_LEVEL: 'debug' },
  );
  await waitFor('the start-up pass', async () => {
    const s = await status(daemon);
    return !s.running && s.lastPass?.trigger === 'start-up' && s.result === 'success' ? s : undefined;
  }, 20_000);
  await waitFor('the applied event', () => hook.received.find((r) => r.json.event === 'applied'));
  const text = (await readFile(path.join(tokens, 'prod', 'build'), 'utf8')).trim();
  assert.match(text, /\.atlasv1\./);
  const shown = [
    await (await daemon.get('/status')).text(),
    await (await daemon.get('/status.html')).text(),
    await (await daemon.get('/metrics')).text(),
    ...hook.received.map((r) => r.body),
    daemon.stderr(),
  ];
  assert.ok(shown[0]!.includes('build/k8s-prod'), '/status names the token change by pool and description');
  for (const [index, what] of ['/status', '/status.html', '/metrics', ...hook.received.map(() => 'a notification'), 'the log'].entries()) {
    assert.ok(!shown[index]!.includes(text), `the token text appeared in ${what}`);
  }
});
